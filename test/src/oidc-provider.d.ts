// The part of oidc-provider (an OpenID Connect / OAuth 2.1 authorization server, a test
// dependency) the OAuth tests use: a provider made from its configuration, served by
// node:http through its Koa callback.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
