// HTML email → readable text. What a reader would not see (scripts, styles, hidden elements, text in its
// background's colour, comments) never reaches the model, as hidden text carries prompt injection and spam
// padding; it is returned apart so it can still be scanned for injection attempts.

import { Parser } from 'htmlparser2';
import { DEFAULT_PAINT, collectSheetPaint, paintOf, type Paint, type SheetPaint } from './html-colors.js';
import { collectHiddenClasses, isHiddenStyle, nestsDeeperThan } from './html-visibility.js';

export { isHiddenStyle, maxNestingDepth } from './html-visibility.js';

export interface RenderedHtml {
  /** Visible text, blocks on their own lines, table cells joined by " | ". */
  text: string;
  /** Text that was present but hidden from the reader, capped. */
  hidden_text: string;
  /** Whether a quoted reply or forwarded history was cut from the text. */
  quote_cut: boolean;
}

/** Separates table cells; replaced once each line is complete. */
const CELL = '\uE000';
/** A line break inside a table row: a space if the row has several cells, else a newline. */
const SOFT_BREAK = '\uE001';
const SENTINELS = /[\uE000\uE001]/g;
const HIDDEN_TEXT_CAP = 20_000;
const MAX_NESTING = 2_000;

const DROPPED_TAGS = new Set([
  'script',
  'title',
  'meta',
  'link',
  'noscript',
  'template',
  'object',
  'embed',
  'iframe',
  'svg',
  'math',
  'canvas',
  'audio',
  'video',
  'select',
  'datalist',
  'xml',
  'base',
  'textarea',
]);

const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'ul',
  'caption',
  'body',
  'html',
]);

/** Class names mail clients put on the quoted part of a reply. */
const QUOTE_CLASSES = new Set(['gmail_quote', 'gmail_attr', 'moz-cite-prefix', 'yahoo_quoted', 'OutlookMessageHeader']);
/** Element ids after which everything is the quoted message (Outlook, Hotmail). */
const QUOTE_START_IDS = new Set(['divrplyfwdmsg', 'appendonsend', 'stopspelling']);

/** How an open element treats what is inside it. */
type Mode = 'visible' | 'hidden' | 'skipped' | 'style';

interface Row {
  cells: number;
  /** Indexes in the output of this row's soft breaks. */
  soft_breaks: number[];
}

export function renderHtml(html: string, options: { cutQuotes: boolean } = { cutQuotes: true }): RenderedHtml {
  const source = html.replace(SENTINELS, '');
  // htmlparser2 keeps its open-element stack in an array it unshifts, so parse time grows
  // with the square of the nesting depth: 200k nested <div>s take many seconds.
  if (nestsDeeperThan(source, MAX_NESTING)) return renderFlat(source);
  const rendered = render(source, options.cutQuotes);
  // A pure forward has nothing above the quote; then the quoted part is the message.
  if (rendered.quote_cut && !/\p{L}/u.test(rendered.text)) return render(source, false);
  return rendered;
}

/**
 * Consumes the parser's events as they come, without a DOM: a templated 5 MB email has hundreds of thousands
 * of elements, and a tree costs more than the parse. htmlparser2 never throws on bad markup and closes every
 * element it opens, so the stack kept here always mirrors its own.
 */
function render(html: string, cutQuotes: boolean): RenderedHtml {
  const out: string[] = [];
  const hidden: string[] = [];
  let hiddenLength = 0;
  let css = '';
  let quoteCut = false;
  let stopped = false;
  const hiddenClasses = new Set<string>();
  const modes: Mode[] = [];
  // The colours in force, one per open element like `modes`: text drawn in its background's
  // colour is hidden text too, decided per text so a readable child of an unreadable parent shows.
  const paints: Paint[] = [];
  const sheetPaint: SheetPaint = { classes: new Set(), anything: false };
  const rows: Row[] = [];

  const lineBreak = (): void => {
    const row = rows.at(-1);
    if (row) {
      row.soft_breaks.push(out.length);
      out.push(SOFT_BREAK);
    } else out.push('\n');
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const parent = modes.at(-1) ?? 'visible';
        const parentPaint = paints.at(-1) ?? DEFAULT_PAINT;
        paints.push(parent === 'visible' && !stopped ? paintOf(name, attribs, parentPaint, sheetPaint) : parentPaint);
        // Style sheets are read wherever they are, the head included: they may hide by class.
        if (name === 'style' && !stopped) return void modes.push('style');
        if (stopped || parent === 'skipped' || parent === 'style') return void modes.push('skipped');
        if (name === 'head' || DROPPED_TAGS.has(name)) return void modes.push('skipped');
        if (cutQuotes) {
          if (attribs.id !== undefined && QUOTE_START_IDS.has(attribs.id.toLowerCase())) {
            quoteCut = true;
            stopped = true;
            return void modes.push('skipped');
          }
          if (isQuoteBlock(name, attribs)) {
            quoteCut = true;
            return void modes.push('skipped');
          }
        }
        if (parent === 'hidden' || isHiddenElement(attribs, hiddenClasses)) return void modes.push('hidden');
        modes.push('visible');
        if (name === 'tr') {
          rows.push({ cells: 0, soft_breaks: [] });
          out.push('\n');
        } else if (name === 'td' || name === 'th') {
          const row = rows.at(-1);
          if (row) row.cells += 1;
          out.push(CELL);
        } else if (name === 'br') lineBreak();
        else if (name === 'li') {
          lineBreak();
          out.push('- ');
        } else if (name === 'table') out.push('\n');
        else if (BLOCK_TAGS.has(name)) lineBreak();
        else if (name === 'img' && attribs.alt?.trim()) out.push(` ${attribs.alt.trim()} `);
      },
      onclosetag(name) {
        const mode = modes.pop();
        paints.pop();
        if (mode === 'style') {
          collectHiddenClasses(css, hiddenClasses);
          collectSheetPaint(css, sheetPaint);
          css = '';
        }
        if (mode !== 'visible') return;
        if (name === 'tr') {
          const row = rows.pop();
          const replacement = row && row.cells > 1 ? ' ' : '\n';
          for (const index of row?.soft_breaks ?? []) out[index] = replacement;
        } else if (name === 'td' || name === 'th') out.push(CELL);
        else if (name === 'table') out.push('\n');
        else if (BLOCK_TAGS.has(name)) lineBreak();
      },
      ontext(data) {
        const mode = modes.at(-1) ?? 'visible';
        if (stopped || mode === 'skipped') return;
        if (mode === 'style') css += data;
        else if (mode === 'visible' && !(paints.at(-1) ?? DEFAULT_PAINT).unreadable)
          out.push(data.replace(/[\t\n\r\f ]+/g, ' '));
        else if (hiddenLength < HIDDEN_TEXT_CAP) {
          hidden.push(data);
          hiddenLength += data.length;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);

  const text = finishLines(out.join('').replaceAll(SOFT_BREAK, '\n'));
  return { text, hidden_text: hidden.join(' ').replace(/\s+/g, ' ').trim(), quote_cut: quoteCut };
}

function isQuoteBlock(name: string, attribs: Record<string, string>): boolean {
  if (name === 'blockquote' && attribs.type?.toLowerCase() === 'cite') return true;
  const classes = attribs.class;
  return classes !== undefined && classes.split(/\s+/).some((name) => QUOTE_CLASSES.has(name));
}

function isHiddenElement(attribs: Record<string, string>, hiddenClasses: ReadonlySet<string>): boolean {
  if (attribs.hidden !== undefined) return true;
  if (attribs.style && isHiddenStyle(attribs.style)) return true;
  if (hiddenClasses.size > 0 && attribs.class) {
    for (const name of attribs.class.split(/\s+/)) if (hiddenClasses.has(name)) return true;
  }
  return false;
}

/** Tags stripped without a tree: for pathological markup only, so hidden text is not told apart. */
function renderFlat(html: string): RenderedHtml {
  const pieces: string[] = [];
  const stripped = html
    .replace(/<(br|\/?(p|div|tr|li|h[1-6]|table|blockquote))\b[^<>]*>/gi, '\n')
    .replace(/<[^<>]*>/g, ' ')
    .replaceAll('<', '&lt;');
  const parser = new Parser({ ontext: (data) => void pieces.push(data) }, { decodeEntities: true });
  parser.end(stripped);
  return { text: pieces.join('').replace(/[\t\f\r ]+/g, ' '), hidden_text: '', quote_cut: false };
}

/** Joins each line's table cells and drops the empty ones. */
function finishLines(raw: string): string {
  if (!raw.includes(CELL)) return raw;
  return raw
    .split('\n')
    .map((line) =>
      line.includes(CELL)
        ? line
            .split(CELL)
            .map((cell) => cell.trim())
            .filter(Boolean)
            .join(' | ')
        : line,
    )
    .join('\n');
}
