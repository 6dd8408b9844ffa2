/**
 * Settings that come from the environment rather than from the user's saved settings. cli.ts is
 * the one place that reads process.env and fills this; modules get it in their context.
 */
export interface DaemonEnv {
  /**
   * LUCKY_WEB_THREADS: web serving threads while the module setting is 0 (automatic): a count (0:
   * automatic), or `main` for the main thread only (the Node path; one thread on the native one).
   */
  webThreads?: number | 'main';
  /**
   * LUCKY_WEB_ENGINE: `node` serves web rules with Node's HTTP servers (the JavaScript path);
   * `native` (the default where the addon is built) with the native data plane, which hands what it
   * does not serve itself to the Node path.
   */
  webEngine?: 'native' | 'node';
  /** LUCKY_NATIVE_RELAY=0 turns the native relay thread off (port forwarding, STUN, FTP data: JavaScript instead). */
  nativeRelay: boolean;
  /** LUCKY_DDNS_TEST_ENDPOINTS: DNS provider API addresses of tests and benchmarks (never in production). */
  ddnsTestEndpoints?: Record<string, string>;
  /**
   * Tests only (never set by cli.ts): the resolver ACME's DNS-01 check finds a zone's name servers
   * with (`host:port`), and the port those answer on.
   */
  acmeTestLookup?: { resolvers: string[]; port: number };
  /** The environment the user's commands run in (STUN's on-change command…): the daemon's own. */
  childEnv?: Readonly<Record<string, string>>;
}

export const DEFAULT_ENV: DaemonEnv = { nativeRelay: true };
