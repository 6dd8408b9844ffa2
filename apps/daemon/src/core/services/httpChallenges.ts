/**
 * `httpChallenges`: ACME HTTP-01 answered by the web services rules that already listen where the
 * CA looks (plain HTTP on the port, 80 unless told otherwise). `/.well-known/acme-challenge/<token>`
 * is answered by every running plain-HTTP web rule of that port, before its filters, login and
 * services, for as long as the order needs it. Provided by the web services module; the
 * certificates module (ACME) uses it, and opens a listener of its own when no rule is there.
 */
export interface HttpChallengesService {
  /**
   * Answers the token on the running plain-HTTP web rules of `port`; resolves with their names and
   * the removal, or null when no such rule runs (the caller listens itself).
   */
  present(port: number, token: string, keyAuthorization: string): Promise<{ rules: string[]; remove(): Promise<void> } | null>;
}
