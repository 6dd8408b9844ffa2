/**
 * `certificateOrders`: certificates ordered for another module's rule, without the user writing a
 * certificate rule (a web rule's automatic HTTPS, a published service). The certificates module
 * keeps one ACME rule per owner, created and changed to match what the owner asks for, marked with
 * the owner in its own list; its certificate lands in the store under `nameFor(owner)`, where the
 * owner reads it through `certificates` like any other (and hears of renewals through its `onChange`).
 * The CA and account are the certificates module's settings for automatic certificates.
 */
import type { Msg, RuleOwner } from '@lucky/contracts';

/** The rule a certificate is ordered for: its module, key, and the name its list shows. */
export type OrderOwner = RuleOwner;

export interface CertificateOrder {
  /** The names the certificate must hold (`*.` names need DNS-01). */
  names: string[];
  challenge: 'http-01' | 'dns-01';
  /** HTTP-01: the port the CA looks at (80 unless a test or a proxy in front says otherwise). */
  httpPort?: number;
  /** DNS-01: the DDNS task whose provider writes the TXT records. */
  dnsTask?: string;
}

export interface CertificateOrdersService {
  /** The store name the owner's certificate is kept under. */
  nameFor(owner: Pick<OrderOwner, 'module' | 'key'>): string;
  /**
   * Makes the owner's ACME rule order exactly these names with this challenge: created when there is
   * none, changed (and so ordered again) when it differs, left alone otherwise. Resolves with the
   * store name; the certificate may come later. Throws an AppError (the certificates module off, a
   * name a CA cannot issue for) and changes nothing then.
   */
  ensure(owner: OrderOwner, order: CertificateOrder): Promise<string>;
  /**
   * Hears how the owner's orders end: `problem` is the CA's reason (the certificate in use, if any,
   * stays), null once a certificate is stored. Returns the unsubscribe.
   */
  watch(owner: Pick<OrderOwner, 'module' | 'key'>, listener: (problem: Msg | null) => void): () => void;
  /** The last order's problem, null when it went well or none ended yet. */
  problem(owner: Pick<OrderOwner, 'module' | 'key'>): Msg | null;
  /** Deletes the owner's ACME rule and its certificate; nothing when there is none. */
  release(owner: Pick<OrderOwner, 'module' | 'key'>): Promise<void>;
}
