// A reply's own text, without the history its mail client quoted and the signature (markers of
// en, de, es and fr clients, matched on a folded copy of each line; kept lines stay as written).
// Pure; the caller renders an HTML-only body to text first (email's renderHtml).

/** A line folded for matching: spaces made plain and collapsed, accents and case removed. */
export function foldLine(line: string): string {
  return line
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[\s\u00a0\u2007\u202f\ufeff\u200b]+/g, ' ')
    .trim()
    .toLowerCase();
}

// "On … wrote:" and its kin, as Gmail, Apple Mail, Outlook and Thunderbird write them (folded).
const ATTRIBUTIONS: readonly RegExp[] = [
  /^on\s.{1,300}\swrote\s?:$/,
  /^am\s.{1,300}\sschrieb\b.{0,300}:$/,
  /^el\s.{1,300}\sescribio\s?:$/,
  /^le\s.{1,300}\sa ecrit\s?:$/,
];
// A wrapped attribution (Gmail breaks a long one before "wrote:" or inside the address) is
// read as up to three lines joined; its first line must open like one.
const ATTRIBUTION_START = /^(on|am|el|le)\s/;
const ATTRIBUTION_MAX_LINES = 3;
const ATTRIBUTION_MAX_LENGTH = 400;

// Banners above a quoted or forwarded message (Outlook desktop, Gmail, Apple Mail), folded.
const BANNERS: readonly RegExp[] = [
  /^-{2,} ?(original message|ursprungliche nachricht|mensaje original|message d.origine) ?-{2,}$/,
  /^-{2,} ?(forwarded message|weitergeleitete nachricht|mensaje reenviado|message transfere) ?-{2,}$/,
  /^(begin forwarded message|anfang der weitergeleiteten nachricht|inicio del mensaje reenviado|debut du message reexpedie) ?:$/,
];

// Outlook's header block: "From:" / "Von:" / "De:" / "De :", then "Sent:" (or "Date:") among the
// next few header lines. Bold markers ("*From:*") come from Outlook's HTML rendered to text.
const HEADER_NAMES =
  'from|sent|date|to|cc|subject|von|gesendet|datum|an|betreff|de|enviado el|enviado|fecha|para|asunto|envoye|a|objet';
const HEADER_LINE = new RegExp(`^\\*?(${HEADER_NAMES}) ?:\\*? ?\\S`);
const FROM_LINE = /^\*?(from|von|de) ?:/;
const SENT_LINE = /^\*?(sent|date|gesendet|datum|enviado( el)?|fecha|envoye) ?:/;
const HEADER_BLOCK_WINDOW = 6;
// Outlook on the web draws a rule of underscores above the block.
const RULE_LINE = /^_{8,}$/;

// Footers mobile clients append below the text; the footer and what follows are cut (folded).
const MOBILE_FOOTER = new RegExp(
  '^(' +
    [
      'sent from my \\S+( \\S+){0,3}',
      'sent from (outlook|mail|yahoo mail|gmail)( for \\S+)?',
      'get outlook for (ios|android)',
      'von meinem \\S+( \\S+){0,3} gesendet',
      'gesendet von meinem \\S+( \\S+){0,3}',
      'von outlook fur (ios|android) gesendet',
      'outlook fur (ios|android) beziehen',
      'enviado desde mi \\S+( \\S+){0,3}',
      'enviado desde (outlook|yahoo mail|correo)( para \\S+)?',
      'obtener outlook para (ios|android)',
      'envoye (de|depuis) mon \\S+( \\S+){0,3}',
      'envoye (de|depuis) (outlook|yahoo mail)( pour \\S+)?',
      'obtenir outlook pour (ios|android)',
    ].join('|') +
    ')[.!]?$',
);

// The signature delimiter "-- " (RFC 3676); clients that strip trailing spaces leave "--".
const SIGNATURE_DELIMITER = /^--$/;
const QUOTED = /^\s*>/;

type Marker = { at: number; kind: 'attribution'; lines: number } | { at: number; kind: 'history' };

/**
 * The reply's own text, trimmed: quoted lines (`>`), the history under an attribution line,
 * Outlook's header block or an "Original Message" banner, the `-- ` signature and mobile footers
 * removed. A reply written below the quote (bottom-posting) keeps what follows the quote.
 * '' when the reply holds only a quote.
 */
export function replyText(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  const folded = lines.map(foldLine);
  return ownLines(lines, folded, 0).join('\n').trim();
}

function ownLines(lines: readonly string[], folded: readonly string[], start: number): string[] {
  // A loop, not recursion: a message may hold thousands of quotes one after another.
  for (let from = start; ;) {
    const marker = findMarker(lines, folded, from);
    const head = unsigned(lines, folded, from, marker === null ? lines.length : marker.at);
    if (marker === null || head.some((line) => line.trim() !== '')) return head;
    // Nothing of the person's own above the history. After an attribution whose quote is marked
    // with ">", their text may follow the quote; under any other marker, all that follows is history.
    if (marker.kind !== 'attribution' || !quoteFollows(lines, marker.at + marker.lines)) return [];
    from = marker.at + marker.lines;
  }
}

/** Lines from..end without quoted lines, cut at the signature delimiter or a mobile footer. */
function unsigned(lines: readonly string[], folded: readonly string[], from: number, end: number): string[] {
  const kept: string[] = [];
  for (let index = from; index < end; index += 1) {
    const line = lines[index]!;
    if (SIGNATURE_DELIMITER.test(folded[index]!) || MOBILE_FOOTER.test(folded[index]!)) break;
    if (!QUOTED.test(line)) kept.push(line);
  }
  return kept;
}

function quoteFollows(lines: readonly string[], from: number): boolean {
  for (let index = from; index < lines.length; index += 1) {
    if (lines[index]!.trim() !== '') return QUOTED.test(lines[index]!);
  }
  return false;
}

/** The first line, from `from` on, where quoted history starts; quoted (">") lines are skipped. */
function findMarker(lines: readonly string[], folded: readonly string[], from: number): Marker | null {
  for (let index = from; index < lines.length; index += 1) {
    const line = folded[index]!;
    if (line === '' || QUOTED.test(lines[index]!)) continue;
    const attribution = attributionLines(lines, folded, index);
    if (attribution > 0) return { at: index, kind: 'attribution', lines: attribution };
    if (BANNERS.some((banner) => banner.test(line))) return { at: index, kind: 'history' };
    if (RULE_LINE.test(line) && FROM_LINE.test(nextFilled(folded, index + 1))) return { at: index, kind: 'history' };
    if (FROM_LINE.test(line) && isHeaderBlock(folded, index)) return { at: index, kind: 'history' };
  }
  return null;
}

/** How many lines the attribution starting at `start` spans (1 to 3), or 0 when there is none. */
function attributionLines(lines: readonly string[], folded: readonly string[], start: number): number {
  if (!ATTRIBUTION_START.test(folded[start]!)) return 0;
  let joined = '';
  for (let count = 1; count <= ATTRIBUTION_MAX_LINES && start + count - 1 < lines.length; count += 1) {
    const line = folded[start + count - 1]!;
    if (line === '' || (count > 1 && QUOTED.test(lines[start + count - 1]!))) return 0;
    // A sentence ending a line does not wrap on to an attribution ("Le rapport est prêt." / "Marie a écrit :").
    if (count > 1 && /[.!?;]$/.test(joined)) return 0;
    joined = joined === '' ? line : `${joined} ${line}`;
    if (joined.length > ATTRIBUTION_MAX_LENGTH) return 0;
    // Every client writes the date or the time in it.
    if (/\d/.test(joined) && ATTRIBUTIONS.some((pattern) => pattern.test(joined))) return count;
  }
  return 0;
}

function nextFilled(folded: readonly string[], from: number): string {
  return folded.slice(from, from + 3).find((line) => line !== '') ?? '';
}

/** From: followed by Sent:/Date: among the next few header lines. */
function isHeaderBlock(folded: readonly string[], start: number): boolean {
  let sawSent = false;
  for (let index = start + 1; index < Math.min(folded.length, start + HEADER_BLOCK_WINDOW); index += 1) {
    const line = folded[index]!;
    if (line === '') continue;
    if (!HEADER_LINE.test(line)) break;
    if (SENT_LINE.test(line)) sawSent = true;
  }
  return sawSent;
}
