// The gateway as an OAuth 2.1 resource server (issue 36), against a real authorization
// server the test starts (oidc-provider, client credentials, JWT access tokens bound to a
// resource by RFC 8707's `resource`): `fleetls serve --http --grpc --grants FILE
// --oauth-issuer ISSUER --oauth-audience http://127.0.0.1:PORT/mcp`, where the principal
// web-agents is any token with scope fleetls.web. Protected resource metadata is served; a
// token for another audience, an expired one, one signed by another key, an opaque one and
// one without the scope are each refused with the right status and WWW-Authenticate, over
// HTTP and gRPC; the MCP SDK client's own OAuth flow (client credentials) gets in and is
// held to the principal's grant.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Code, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Fleet } from '@fleetls/proto/fleet_pb';
import { freePort, makeTree } from '@fleetls/testkit';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { openChromium } from '../helpers/chromium.js';
import { type GatewayProcess, startGateway } from '../helpers/gateway-process.js';
import { grantsYaml, rpcCode } from '../helpers/grants-fleet.js';

// The page's globals, inside page.waitForFunction callbacks (this package compiles without the DOM lib).
declare const document: { querySelector(sel: string): { textContent: string | null } | null };

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

const CLIENT = { id: 'web-agent', secret: 'web-agent-secret-0123456789' };

const bearer =
  (token: string): Interceptor =>
  (next) =>
  (req) => {
    req.header.set('authorization', `Bearer ${token}`);
    return next(req);
  };

describe('grants: the gateway as an OAuth 2.1 resource server, against a real issuer', () => {
  let root: string;
  let issuer: string;
  let audience: string;
  let base: string;
  let grpcAt: string;
  let idp: Server;
  let gw: GatewayProcess;
  let signingKey: Key;

  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fleetls-oauth-')));
    makeTree(path.join(root, 'log'), [['a.log', { data: 'a'.repeat(30) }]]);
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    signingKey = privateKey;
    const idpPort = await freePort();
    issuer = `http://127.0.0.1:${idpPort}`;
    const gwPort = await freePort();
    base = `http://127.0.0.1:${gwPort}`;
    audience = `${base}/mcp`;
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT.id,
          client_secret: CLIENT.secret,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          scope: 'fleetls.web fleetls.other',
        },
        {
          // The dashboard: a public client (no secret: PKCE), back to the dashboard's address.
          client_id: 'dashboard',
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'],
          response_types: ['code'],
          redirect_uris: [`${base}/`],
          scope: 'fleetls.web',
        },
      ],
      scopes: ['fleetls.web', 'fleetls.other'],
      jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' }] },
      features: {
        // Its development login and consent pages stand in for a real one's (any login is accepted).
        devInteractions: { enabled: true },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => audience,
          useGrantedResource: () => true,
          // Any resource a client names gets a JWT access token for it, as a real issuer
          // configured for several services does.
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: 'fleetls.web fleetls.other',
            audience: resource,
            accessTokenTTL: 300,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
    });
    idp = createServer(provider.callback());
    await new Promise<void>((resolve) => idp.listen(idpPort, '127.0.0.1', resolve));

    const grants = path.join(root, 'grants.yaml');
    fs.writeFileSync(
      grants,
      grantsYaml({
        'web-agents': {
          oauth: { scope: 'fleetls.web' },
          tools: ['list_files', 'stat'],
          hosts: ['all'],
          paths: [path.join(root, 'log')],
        },
      }),
    );
    gw = startGateway(
      [
        '--http',
        `127.0.0.1:${gwPort}`,
        '--grpc',
        '127.0.0.1:0',
        '--allow',
        root,
        '--grants',
        grants,
        '--oauth-issuer',
        issuer,
        '--oauth-audience',
        audience,
        '--oauth-dashboard-client',
        'dashboard',
      ],
      {},
    );
    await gw.waitFor(/MCP over HTTP at/);
    grpcAt = await gw.waitFor(/Fleet API \(gRPC\) at (\S+)/);
  });
  after(async () => {
    await gw?.stop();
    await new Promise((resolve) => idp?.close(resolve));
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  /** An access token from the issuer's token endpoint (client credentials, RFC 8707 resource). */
  async function issued(scope: string, resource = audience): Promise<string> {
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
    });
    const body = (await res.json()) as { access_token?: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(body.access_token?.split('.').length === 3, 'a JWT access token');
    return body.access_token as string;
  }

  /** A token of our own making: the issuer's key (or another) and the claims given. */
  function forged(key: Key, claims: { exp: number; scope?: string; aud?: string }): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: claims.scope ?? 'fleetls.web', client_id: CLIENT.id })
      .setProtectedHeader({ alg: 'RS256', kid: 'idp-1', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(claims.aud ?? audience)
      .setSubject(CLIENT.id)
      .setIssuedAt(now - 600)
      .setExpirationTime(claims.exp)
      .sign(key);
  }

  async function post(token: string | undefined): Promise<{ status: number; challenge: string }> {
    const res = await fetch(audience, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    await res.arrayBuffer();
    return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '' };
  }

  it('serves its protected resource metadata (RFC 9728) at both well-known places', async () => {
    for (const p of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${base}${p}`);
      assert.equal(res.status, 200, p);
      assert.deepEqual(await res.json(), {
        resource: audience,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['fleetls.web'],
        resource_name: 'fleetls',
      });
    }
  });

  it('answers a call without a token 401, naming its metadata', async () => {
    const r = await post(undefined);
    assert.equal(r.status, 401);
    assert.equal(r.challenge, `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('refuses a token for another audience, an expired one, one signed by another key and an opaque one: 401 invalid_token', async () => {
    const other = (await generateKeyPair('RS256')).privateKey;
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string, RegExp][] = [
      [
        'another audience',
        await issued('fleetls.web', 'https://other.example/api'),
        /not for this resource: its audience must be/,
      ],
      ['expired', await forged(signingKey, { exp: now - 120 }), /has expired/],
      ['another key', await forged(other, { exp: now + 300 }), /signature does not verify/],
      ['opaque', 'opaque-access-token-0123456789', /is not a JWT/],
    ];
    for (const [what, token, why] of cases) {
      const r = await post(token);
      assert.equal(r.status, 401, what);
      assert.ok(
        r.challenge.startsWith(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`),
        r.challenge,
      );
      assert.match(r.challenge, /error="invalid_token"/, what);
      assert.match(r.challenge, why, what);
      const grpc = createClient(
        Fleet,
        createGrpcTransport({ baseUrl: `http://${grpcAt}`, interceptors: [bearer(token)] }),
      );
      assert.equal(await rpcCode(grpc.stat({ host: 'localhost', path: root })), Code.Unauthenticated, what);
    }
    // Within the skew an expired token still passes; past it, not (the 401 above).
    assert.equal((await post(await forged(signingKey, { exp: now - 5 }))).status, 200);
  });

  it('refuses a valid token without the scope: 403 insufficient_scope naming the scope', async () => {
    const token = await issued('fleetls.other');
    const r = await post(token);
    assert.equal(r.status, 403);
    assert.match(
      r.challenge,
      /^Bearer resource_metadata="[^"]+", error="insufficient_scope", error_description="[^"]+", scope="fleetls\.web"$/,
    );
    const grpc = createClient(
      Fleet,
      createGrpcTransport({ baseUrl: `http://${grpcAt}`, interceptors: [bearer(token)] }),
    );
    assert.equal(await rpcCode(grpc.stat({ host: 'localhost', path: root })), Code.PermissionDenied);
  });

  it("lets a token with the scope in, held to its principal's grant, over HTTP and gRPC", async () => {
    const token = await issued('fleetls.web');
    assert.equal((await post(token)).status, 200);
    const grpc = createClient(
      Fleet,
      createGrpcTransport({ baseUrl: `http://${grpcAt}`, interceptors: [bearer(token)] }),
    );
    assert.equal(await rpcCode(grpc.stat({ host: 'localhost', path: path.join(root, 'log') })), 'ok');
    assert.equal(await rpcCode(grpc.stat({ host: 'localhost', path: root })), Code.PermissionDenied);
    assert.equal(
      await rpcCode(grpc.listDirectory({ host: 'localhost', path: path.join(root, 'log') })),
      Code.PermissionDenied,
    );
  });

  it("gets in through the MCP SDK client's own OAuth flow (client credentials), as web-agents", async () => {
    const client = new Client({ name: 'oauth-agent', version: '1.0.0' });
    const authProvider = new ClientCredentialsProvider({
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
      scope: 'fleetls.web',
      expectedIssuer: issuer,
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(audience), { authProvider }));
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['list_files', 'stat']);
      const r = (await client.callTool({
        name: 'list_files',
        arguments: { host: 'localhost', path: path.join(root, 'log') },
      })) as CallToolResult;
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      const denied = (await client.callTool({
        name: 'stat',
        arguments: { host: 'localhost', path: root },
      })) as CallToolResult;
      assert.match(JSON.stringify(denied.content), /permission_denied: path .* is outside web-agents's roots/);
    } finally {
      await client.close();
    }
  });

  it('signs the dashboard in with the issuer (authorization code + PKCE) as web-agents, and out', async () => {
    const browser = await openChromium();
    try {
      const { page } = browser;
      await page.goto(`${base}/`);
      await page.locator('#oauth-signin').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#oauth-signin').textContent(), `Sign in with ${new URL(issuer).host}`);
      await page.click('#oauth-signin');
      // The issuer's own pages (oidc-provider's development login and consent).
      await page.locator('input[name=login]').waitFor();
      await page.fill('input[name=login]', 'alice');
      await page.fill('input[name=password]', 'any');
      await page.click('button[type=submit]');
      await page.locator('button[type=submit]:has-text("Continue")').click();
      await page.waitForFunction(() => document.querySelector('#conn')?.textContent === 'signed in as web-agents');
      assert.equal(new URL(page.url()).search, '', 'the code and state are gone from the address');
      const token = String(await page.evaluate('sessionStorage.getItem("fleetls-token")'));
      assert.equal(token.split('.').length, 3, 'a JWT access token');
      assert.equal(await page.evaluate('sessionStorage.getItem("fleetls-pkce")'), null);
      // web-agents may call list_files and stat: the dashboard has no view for them, and says so.
      assert.match(
        (await page.locator('#fatal').textContent()) ?? '',
        /^web-agents may call list_files, stat on hosts localhost under .*: the dashboard has no view for these/,
      );
      await page.click('#forget');
      await page.locator('#login').waitFor({ state: 'visible' });
      assert.equal(await page.evaluate('sessionStorage.getItem("fleetls-token")'), null);
    } finally {
      await browser.close();
    }
  });
});
