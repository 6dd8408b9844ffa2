// oidc-provider (a dev dependency: the tests' OpenID provider) ships no types; the tests use a little of it.
declare module 'oidc-provider' {
  import type { Server } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number): Server;
  }
}
