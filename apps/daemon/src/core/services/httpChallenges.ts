/**
 * `httpChallenges`: ACME HTTP-01 answered by the plain-HTTP listeners that already run where the CA
 * looks (port 80 unless told otherwise): web services rules of that port and the HTTP companions of
 * HTTPS rules. `/.well-known/acme-challenge/<token>` is answered by each of them, before its
 * filters, login and services, for as long as the order needs it. The daemon keeps the tokens (so
 * neither the web module nor the certificates module needs the other): listeners take part with
 * `answer`, the certificates module (ACME) gives tokens with `present`, and opens a listener of its
 * own when nobody answers on the port.
 */
export interface HttpChallengesService {
  /**
   * Answers the token on every listener of `port`; resolves once they all answer it, with their
   * names and the removal, or null when none answers there (the caller listens itself).
   */
  present(port: number, token: string, keyAuthorization: string): Promise<{ rules: string[]; remove(): Promise<void> } | null>;
  /**
   * A listener of `port` answers challenges from now on: `changed` is called (and awaited by
   * `present`) when the port's tokens change. Returns the leave.
   */
  answer(port: number, name: string, changed: () => Promise<void> | void): () => void;
  /** The port's tokens now (token → key authorization); empty when none. */
  tokens(port: number): ReadonlyMap<string, string>;
}
