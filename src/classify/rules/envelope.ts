// What the envelope says about a message, whatever its language: who sent it (a person, a
// machine, a mailing system), where replies go, and whether a sender or link borrows a brand.

import type { Email } from '../../email/index.js';
import { hostsInText, imitatedBrand, ownsDomain, brandInName } from './lookalike.js';

// Local parts of machines and mailing systems, in the four languages we read.
const NO_REPLY_LOCAL =
  /^(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|mailer-daemon|postmaster|bounces?|ne[-_.]?pas[-_.]?repondre|no[-_.]?responder|keine[-_.]?antwort|nicht[-_.]?antworten)(?:[-_.+]|$)/i;
const AUTOMATED_LOCAL =
  /^(?:notifications?|notify|alerts?|automated|system|robot|builds?|ci|jira|github|gitlab|jenkins|confluence|status|security|account|accounts|billing|receipts?|orders?|benachrichtigung(?:en)?|rechnung(?:en)?|avisos?|notificaciones|factura(?:s|cion)?|facturation|factures?|alertes)(?:[-_.+]|$)/i;
const BULK_LOCAL =
  /^(?:news|newsletters?|marketing|promo(?:tions)?|offers?|deals|hello|info|updates?|digest|community|events?|eventos|evenements|veranstaltungen|angebote|ofertas|boletin|lettre|hebdo|weekly)(?:[-_.+]|$)/i;

export type SenderKind = 'no_reply' | 'automated' | 'bulk' | 'person';

export function senderKind(address: string | null | undefined): SenderKind {
  const local = (address ?? '').split('@')[0] ?? '';
  if (NO_REPLY_LOCAL.test(local)) return 'no_reply';
  if (AUTOMATED_LOCAL.test(local)) return 'automated';
  if (BULK_LOCAL.test(local)) return 'bulk';
  return 'person';
}

/** Addresses of machines and mailing systems rather than of a person. */
export function isMachineAddress(address: string | null | undefined): boolean {
  return senderKind(address) !== 'person';
}

function domainOf(address: string | null | undefined): string | null {
  const at = address?.lastIndexOf('@') ?? -1;
  return address && at > 0 ? address.slice(at + 1).toLowerCase() : null;
}

/** Replies routed to a different domain than the sender's: a common mark of fraud. */
export function replyToMismatch(email: Email): boolean {
  const from = domainOf(email.from?.address);
  if (from === null) return false;
  return email.reply_to.some((mailbox) => {
    const domain = domainOf(mailbox.address);
    return domain !== null && domain !== from && !domain.endsWith(`.${from}`) && !from.endsWith(`.${domain}`);
  });
}

/**
 * Brands imitated by the sender's or the reply address's domain, by a link written out in the
 * text, or by a display name ("PayPal") on a domain the brand does not own.
 */
export function lookalikeBrands(email: Email, text: string): string[] {
  const brands = new Set<string>();
  const fromDomain = domainOf(email.from?.address);
  const hosts = [fromDomain, ...email.reply_to.map((mailbox) => domainOf(mailbox.address)), ...hostsInText(text)];
  for (const host of hosts) {
    const brand = host ? imitatedBrand(host) : null;
    if (brand) brands.add(brand);
  }
  const named = brandInName(email.from?.name ?? '');
  if (named && fromDomain && !ownsDomain(named, fromDomain)) brands.add(named);
  return [...brands];
}
