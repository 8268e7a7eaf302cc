// The Fleet gRPC API with client certificates (mTLS) and no token: a client with a
// certificate from the configured CA is served, one without a certificate or with one
// from another CA is refused at the handshake; and with mTLS `fleetls serve` binds a
// non-loopback address (no token needed).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type FleetClient, loadFleetContract } from '@fleetls/proto';
import * as grpc from '@grpc/grpc-js';
import { makePki, type TestPki } from '../../helpers/certs.js';
import { type GatewayProcess, startGateway } from '../../helpers/gateway-process.js';

describe('Fleet gRPC API over mTLS', () => {
  let dir: string;
  let pki: TestPki;
  let gw: GatewayProcess;
  let address: string;

  /** `fleetls serve --grpc` at `bind` with client certificates required, no token, no inventory. */
  const serveMtls = (bind: string) =>
    startGateway(
      [
        '--grpc',
        bind,
        '--allow',
        dir,
        '--grpc-tls-cert',
        pki.serverCert,
        '--grpc-tls-key',
        pki.serverKey,
        '--grpc-tls-ca',
        pki.ca,
      ],
      { FLEETLS_INVENTORY: '' },
    );

  before(async () => {
    dir = fs.mkdtempSync(join(os.tmpdir(), 'fleetls-fleet-mtls-'));
    pki = makePki(dir, ['localhost', '127.0.0.1']);
    gw = serveMtls('127.0.0.1:0');
    address = await gw.waitFor(/Fleet API \(gRPC\) at (\S+)/);
  });
  after(async () => {
    await gw?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function listHosts(
    creds: grpc.ChannelCredentials,
    at = address,
    options: grpc.ChannelOptions = {},
  ): Promise<{ hosts: { host: string }[] }> {
    const Fleet = loadFleetContract().proto.fleetls.v1.Fleet;
    const client = new Fleet(at, creds, options) as unknown as FleetClient;
    return new Promise<{ hosts: { host: string }[] }>((resolve, reject) =>
      client.ListHosts({}, { deadline: Date.now() + 5000 }, (err, res) =>
        err ? reject(err) : resolve(res as { hosts: { host: string }[] }),
      ),
    ).finally(() => client.close());
  }

  const read = (f: string) => fs.readFileSync(f);

  it('serves a client whose certificate the CA signed', async () => {
    const res = await listHosts(grpc.credentials.createSsl(read(pki.ca), read(pki.clientKey), read(pki.clientCert)));
    assert.deepEqual(
      res.hosts.map((h) => h.host),
      ['localhost'],
    );
  });

  it('refuses a client without a certificate, or with one from another CA', async () => {
    for (const creds of [
      grpc.credentials.createSsl(read(pki.ca)),
      grpc.credentials.createSsl(read(pki.ca), read(pki.strangerKey), read(pki.strangerCert)),
    ]) {
      await assert.rejects(listHosts(creds), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.UNAVAILABLE);
        return true;
      });
    }
  });

  it('fleetls serve binds a non-loopback address with client certificates and no token', async () => {
    // The real CLI: its own check (serve-auth.ts) runs before the server's, so both must let mTLS through.
    const wide = serveMtls('0.0.0.0:0');
    try {
      const bound = await wide.waitFor(/Fleet API \(gRPC\) at (\S+)/);
      assert.match(bound, /^0\.0\.0\.0:\d+$/, 'bound to every address, not narrowed to loopback');
      const port = bound.split(':')[1];
      // Dialled at a non-loopback address of this machine where it has one (the certificate
      // names localhost: the TLS name is set to it), else at loopback, which 0.0.0.0 covers too.
      const external = Object.values(os.networkInterfaces())
        .flat()
        .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
      const at = `${external ?? '127.0.0.1'}:${port}`;
      const name = { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' };
      const certified = grpc.credentials.createSsl(read(pki.ca), read(pki.clientKey), read(pki.clientCert));
      const res = await listHosts(certified, at, name);
      assert.deepEqual(
        res.hosts.map((h) => h.host),
        ['localhost'],
      );
      await assert.rejects(listHosts(grpc.credentials.createSsl(read(pki.ca)), at, name), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.UNAVAILABLE);
        return true;
      });
    } finally {
      await wide.stop();
    }
  });
});
