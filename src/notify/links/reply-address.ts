// A reply token in the intake mailbox's address and back: INTAKE_REPLY_ADDRESS is a template such
// as `desk+{token}@example.org`; the token sits in the local part, which MTAs may re-case.

const PLACEHOLDER = '{token}';
/** RFC 5321: a local part is at most 64 octets. */
const MAX_LOCAL_PART = 64;

function partsOf(template: string): [string, string] {
  const at = template.lastIndexOf('@');
  const index = template.indexOf(PLACEHOLDER);
  if (index === -1 || index !== template.lastIndexOf(PLACEHOLDER) || at === -1 || index > at) {
    throw new Error(
      `a reply address template holds ${PLACEHOLDER} once, in its local part (e.g. desk+${PLACEHOLDER}@example.org)`,
    );
  }
  return [template.slice(0, index), template.slice(index + PLACEHOLDER.length)];
}

/** The address a reply goes to; refused when the local part would pass 64 characters. */
export function replyAddress(template: string, token: string): string {
  const [before, after] = partsOf(template);
  const address = `${before}${token}${after}`;
  if (address.lastIndexOf('@') > MAX_LOCAL_PART) {
    throw new Error(`the reply address's local part would be longer than ${MAX_LOCAL_PART} characters`);
  }
  return address;
}

/**
 * The token in a recipient address made from `template` (`Name <desk+…@example.org>` too),
 * lowercased; null when the address is not one of the template's.
 */
export function replyTokenFrom(template: string, address: string): string | null {
  const [before, after] = partsOf(template);
  const bare = /<([^<>]*)>\s*$/.exec(address)?.[1] ?? address;
  const text = bare.trim().toLowerCase();
  const prefix = before.toLowerCase();
  const suffix = after.toLowerCase();
  if (text.length <= prefix.length + suffix.length || !text.startsWith(prefix) || !text.endsWith(suffix)) return null;
  const token = text.slice(prefix.length, text.length - suffix.length);
  return /^[a-z0-9-]+$/.test(token) ? token : null;
}
