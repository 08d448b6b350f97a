// The content fingerprint: the same mail sent twice (a resend, a copy under another id) has
// the same one, whatever the reply prefixes and quoted history around it.

import { createHash } from 'node:crypto';
import type { Email } from '../../email/index.js';

/** Reply and forward prefixes in the languages mail clients most often write them in. */
const SUBJECT_PREFIX = /^\s*(?:(?:re|fw|fwd|aw|wg|sv|vs|antw|tr|rif)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*)+/i;

export function stripSubjectPrefixes(subject: string): string {
  return subject.replace(SUBJECT_PREFIX, '').trim();
}

export function fingerprintOf(email: Email): string {
  const sender = (email.from?.address ?? email.sender?.address ?? '').toLowerCase();
  // JSON keeps the parts apart: no subject/body split can collide with another.
  const material = JSON.stringify([sender, stripSubjectPrefixes(email.subject), email.body.full_text]);
  return createHash('sha256').update(material).digest('hex');
}
