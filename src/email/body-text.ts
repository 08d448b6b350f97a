// Email body → the text a classifier should read: only the newest message, without quoted
// history or signature, invisible characters removed, whitespace collapsed, and cut to a
// budget that keeps both ends (requests tend to open a mail, deadlines to close it).

import { renderHtml } from './html-to-text.js';

export type BodyFormat = 'html' | 'text';

export interface PreparedBody {
  /** What the model reads: the newest message, truncated to the budget. */
  text: string;
  /** The same before truncation; the fingerprint is taken over this. */
  full_text: string;
  /** The cut signature block (names, titles, companies), or null. */
  signature: string | null;
  /** Hidden HTML text, kept only to look for injection attempts. */
  hidden_text: string;
  truncated: boolean;
}

// Zero-width, bidi controls, soft hyphen, variation selectors, Unicode tag characters (which
// can smuggle invisible ASCII) and the private-use sentinel the HTML walk uses.
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- combining marks are listed to be removed one by one
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uE000]|[\u{E0000}-\u{E007F}]/gu;

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

export function prepareBody(content: string, format: BodyFormat, maxChars: number): PreparedBody {
  let text: string;
  let hiddenText = '';
  if (format === 'html') {
    const rendered = renderHtml(content);
    text = rendered.text;
    hiddenText = stripInvisible(rendered.hidden_text);
  } else {
    text = content;
  }
  text = stripInvisible(text).replace(/\r\n?/g, '\n');
  text = cutQuotedReply(text);
  const { body, signature } = cutSignature(text);
  const fullText = collapseWhitespace(body);
  const truncatedText = truncateMiddle(fullText, maxChars);
  return {
    text: truncatedText,
    full_text: fullText,
    signature: signature === null ? null : collapseWhitespace(signature) || null,
    hidden_text: hiddenText,
    truncated: truncatedText.length !== fullText.length,
  };
}

/** Spaces inside lines become one, lines are trimmed, runs of blank lines become one. */
export function collapseWhitespace(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[\s\u00A0\u2000-\u200A\u202F\u205F\u3000]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const QUOTE_MARKERS: readonly RegExp[] = [
  /^-{2,}\s*original message\s*-{2,}$/i,
  /^-{2,}\s*forwarded message\s*-{2,}$/i,
  /^begin forwarded message:?$/i,
  /^-{3,}\s*forwarded by\b/i,
  /^on\s.{1,250}\swrote:$/i,
  /^am\s.{1,250}\sschrieb\s?.{0,80}:$/i,
  /^le\s.{1,250}\sa écrit\s?:$/i,
  /^el\s.{1,250}\sescribió:$/i,
];

const HEADER_LINE = /^\*?(from|sent|date|to|cc|subject|von|gesendet|an|betreff|de|envoyé|objet)\s*:\*?\s*\S/i;
const FROM_LINE = /^\*?(from|von|de)\s*:/i;
const SENT_LINE = /^\*?(sent|date|gesendet|envoyé)\s*:/i;

/**
 * Cuts at the first marker of quoted history: "On … wrote:", "-----Original Message-----",
 * a forwarded-message banner, or an Outlook-style From:/Sent: header block. Lines quoted with
 * ">" are dropped. A message that is nothing but a forward keeps its forwarded text.
 */
export function cutQuotedReply(text: string): string {
  const lines = text.split('\n');
  const cutAt = findQuoteStart(lines);
  const kept = cutAt === -1 ? lines : lines.slice(0, cutAt);
  const unquoted = kept.filter((line) => !/^\s*>/.test(line)).join('\n');
  if (/\p{L}/u.test(unquoted)) return unquoted;
  // Nothing of our own above the quote: the history is the message.
  return lines
    .filter((line) => !/^\s*>\s*$/.test(line))
    .map((line) => line.replace(/^\s*(>\s?)+/, ''))
    .join('\n');
}

function findQuoteStart(lines: readonly string[]): number {
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!.trim();
    if (line.length === 0) continue;
    if (QUOTE_MARKERS.some((marker) => marker.test(line))) return index;
    // Gmail wraps a long attribution: "On Thu, … <a@b.c>" / "wrote:".
    const next = lines[index + 1]?.trim() ?? '';
    if (/^on\s/i.test(line) && line.length < 250 && /^.{0,120}wrote:$/i.test(next)) return index;
    if (/^_{8,}$/.test(line) && FROM_LINE.test(next)) return index;
    if (FROM_LINE.test(line) && isHeaderBlock(lines, index)) return index;
  }
  return -1;
}

/** From: followed by Sent:/Date: among the next few header lines. */
function isHeaderBlock(lines: readonly string[], start: number): boolean {
  let sawSent = false;
  let headers = 1;
  for (let index = start + 1; index < Math.min(lines.length, start + 6); index += 1) {
    const line = lines[index]!.trim();
    if (line.length === 0) continue;
    if (!HEADER_LINE.test(line)) break;
    headers += 1;
    if (SENT_LINE.test(line)) sawSent = true;
  }
  return sawSent && headers >= 2;
}

const SIGNATURE_DELIMITER = /^--\s?$/;
const MOBILE_FOOTER =
  /^(sent from my \w+|sent from (mail|outlook|yahoo mail)\b|get outlook for (ios|android)|envoyé de mon \w+|von meinem \w+ gesendet)/i;
const SIGN_OFF =
  /^(thanks|thank you|thanks again|many thanks|thanks in advance|cheers|best|best regards|kind regards|warm regards|warmest regards|regards|sincerely|sincerely yours|yours truly|yours sincerely|all the best|best wishes|talk soon|br|rgds|mit freundlichen grüßen|viele grüße|cordialement)\s*[,.!]?$/i;
const SIGN_OFF_WINDOW = 8;
const SIGNATURE_LINE_MAX = 72;

/** Splits the signature off: a "-- " line, a mobile footer, or a sign-off near the end. */
export function cutSignature(text: string): { body: string; signature: string | null } {
  const lines = text.split('\n');
  const split = (index: number, skip = 0): { body: string; signature: string | null } => ({
    body: lines.slice(0, index).join('\n'),
    signature:
      lines
        .slice(index + skip)
        .join('\n')
        .trim() || null,
  });
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (SIGNATURE_DELIMITER.test(line) && index > 0) return split(index, 1);
    if (MOBILE_FOOTER.test(line.trim())) return split(index, 1);
  }
  // A sign-off counts only near the end and when what follows looks like a name block.
  const nonEmpty = lines.map((line, index) => ({ line: line.trim(), index })).filter((entry) => entry.line);
  const window = nonEmpty.slice(-SIGN_OFF_WINDOW);
  for (const { line, index } of window) {
    if (!SIGN_OFF.test(line)) continue;
    const after = nonEmpty.filter((entry) => entry.index > index);
    const before = nonEmpty.filter((entry) => entry.index < index);
    if (before.length === 0) continue;
    if (after.length <= 6 && after.every((entry) => entry.line.length <= SIGNATURE_LINE_MAX)) return split(index);
  }
  return { body: text, signature: null };
}

/** Keeps the head and the tail within `maxChars`, with a visible marker between them. */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = (omitted: number): string => `\n[… ${omitted} characters omitted …]\n`;
  // The longest the marker can get, so the result never exceeds the budget.
  const room = maxChars - marker(text.length).length;
  if (room < 20) return safeSlice(text, 0, maxChars);
  const headLength = Math.floor(room * 0.7);
  const tailLength = room - headLength;
  const head = safeSlice(text, 0, backToSpace(text, headLength)).trimEnd();
  const tail = safeSlice(text, forwardToSpace(text, text.length - tailLength), text.length).trimStart();
  return `${head}${marker(text.length - head.length - tail.length)}${tail}`;
}

/** Moves a cut back to a nearby space so words stay whole. */
function backToSpace(text: string, at: number): number {
  const space = text.lastIndexOf(' ', at);
  return space > at - 40 && space > 0 ? space : at;
}

function forwardToSpace(text: string, at: number): number {
  const space = text.indexOf(' ', at);
  return space !== -1 && space < at + 40 ? space : at;
}

/** A slice that never splits a surrogate pair. */
function safeSlice(text: string, start: number, end: number): string {
  let from = start;
  let to = end;
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from += 1;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to -= 1;
  return text.slice(from, to);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
