// HTML email → readable text. What a reader would not see (scripts, styles, hidden elements,
// comments) never reaches the model: hidden text is a classic carrier for prompt injection and
// for spam padding. It is returned apart so it can still be scanned for injection attempts.
//
// The walk is iterative: a broken or hostile email can nest elements deeper than the call
// stack, and htmlparser2 never throws on bad markup, so neither does this.

import { ElementType, parseDocument } from 'htmlparser2';

type HtmlDocument = ReturnType<typeof parseDocument>;
type HtmlNode = HtmlDocument['children'][number];
type HtmlElement = Extract<HtmlNode, { attribs: Record<string, string> }>;

export interface RenderedHtml {
  /** Visible text, blocks on their own lines, table cells joined by " | ". */
  text: string;
  /** Text that was present but hidden from the reader, capped. */
  hidden_text: string;
  /** Whether a quoted reply or forwarded history was cut from the text. */
  quote_cut: boolean;
}

/** Separates table cells during the walk; replaced once each line is complete. */
const CELL = '\uE000';
const HIDDEN_TEXT_CAP = 20_000;

const DROPPED_TAGS = new Set([
  'script', 'style', 'head', 'title', 'meta', 'link', 'noscript', 'template', 'object', 'embed',
  'iframe', 'svg', 'math', 'canvas', 'audio', 'video', 'select', 'datalist', 'xml', 'base',
]);

const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'dd', 'details', 'dialog', 'div', 'dl',
  'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody',
  'thead', 'tfoot', 'tr', 'ul', 'caption', 'body', 'html',
]);

/** Class names mail clients put on the quoted part of a reply. */
const QUOTE_CLASSES = ['gmail_quote', 'gmail_attr', 'moz-cite-prefix', 'yahoo_quoted', 'OutlookMessageHeader'];
/** Element ids after which everything is the quoted message (Outlook, Hotmail). */
const QUOTE_START_IDS = new Set(['divrplyfwdmsg', 'appendonsend', 'stopspelling']);

export function renderHtml(html: string, options: { cutQuotes: boolean } = { cutQuotes: true }): RenderedHtml {
  const source = html.replaceAll(CELL, '');
  // htmlparser2 keeps its open-element stack in an array it unshifts, so parse time grows
  // with the square of the nesting depth: 200k nested <div>s take many seconds.
  if (maxNestingDepth(source) > MAX_NESTING) return renderFlat(source);
  const document = parseDocument(source);
  const rendered = walk(document, options.cutQuotes);
  // A pure forward has nothing above the quote; then the quoted part is the message.
  if (rendered.quote_cut && !/\p{L}/u.test(rendered.text)) return walk(document, false);
  return rendered;
}

const MAX_NESTING = 2_000;
/** Tags that are void or that the parser closes implicitly, so they do not deepen the tree. */
const NON_NESTING = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track',
  'wbr', 'p', 'li', 'td', 'th', 'tr', 'option', 'dt', 'dd',
]);

/** A linear scan: `[^<>]*` cannot backtrack past the next tag. */
export function maxNestingDepth(html: string): number {
  const tag = /<(\/?)([a-zA-Z][\w:-]*)[^<>]*>/g;
  let depth = 0;
  let deepest = 0;
  for (let match = tag.exec(html); match !== null; match = tag.exec(html)) {
    if (NON_NESTING.has(match[2]!.toLowerCase())) continue;
    if (match[1]) depth = depth > 0 ? depth - 1 : 0;
    else if (!match[0].endsWith('/>')) deepest = Math.max(deepest, ++depth);
  }
  return deepest;
}

/** Tags stripped without a tree: for pathological markup only, so hidden text is not told apart. */
function renderFlat(html: string): RenderedHtml {
  const text = html
    .replace(/<(br|\/?(p|div|tr|li|h[1-6]|table|blockquote))\b[^<>]*>/gi, '\n')
    .replace(/<[^<>]*>/g, ' ')
    .replaceAll('<', '&lt;');
  const document = parseDocument(text);
  const decoded = document.children.map((node) => ('data' in node ? node.data : '')).join('');
  return { text: decoded.replace(/[\t\f\r ]+/g, ' '), hidden_text: '', quote_cut: false };
}

type Frame = { node: HtmlNode; hidden: boolean } | { exit: HtmlElement };

function walk(document: HtmlDocument, cutQuotes: boolean): RenderedHtml {
  const out: string[] = [];
  const hidden: string[] = [];
  let hiddenLength = 0;
  let quoteCut = false;
  const hiddenClasses = new Set<string>();
  const stack: Frame[] = [];
  // One entry per open <tr>: whether its cells share one line (a data row, not layout).
  const rows: boolean[] = [];
  pushChildren(stack, document.children, false);

  while (stack.length > 0) {
    const frame = stack.pop()!;
    if ('exit' in frame) {
      closeElement(frame.exit, out, rows);
      continue;
    }
    const { node } = frame;
    if (node.type === ElementType.Text) {
      const text = node.data.replace(/[\t\n\r\f ]+/g, ' ');
      if (!frame.hidden) out.push(text);
      else if (hiddenLength < HIDDEN_TEXT_CAP) {
        hidden.push(text);
        hiddenLength += text.length;
      }
      continue;
    }
    if (node.type === ElementType.Style) {
      collectHiddenClasses(textOf(node), hiddenClasses);
      continue;
    }
    if (node.type !== ElementType.Tag) continue; // comments, directives, CDATA, scripts

    const name = node.name.toLowerCase();
    if (name === 'head') {
      // Only the style sheets matter in the head: they may hide body elements by class.
      for (const child of node.children) if (child.type === ElementType.Style) collectHiddenClasses(textOf(child), hiddenClasses);
      continue;
    }
    if (DROPPED_TAGS.has(name)) continue;
    if (cutQuotes) {
      const id = node.attribs.id?.toLowerCase();
      if (id !== undefined && QUOTE_START_IDS.has(id)) {
        quoteCut = true;
        break;
      }
      if (isQuoteBlock(node, name)) {
        quoteCut = true;
        continue;
      }
    }
    const isHidden = frame.hidden || isHiddenElement(node, hiddenClasses);
    if (!isHidden) {
      openElement(node, name, out, rows);
      stack.push({ exit: node });
    }
    pushChildren(stack, node.children, isHidden);
  }
  return { text: finishLines(out.join('')), hidden_text: hidden.join(' ').trim(), quote_cut: quoteCut };
}

function pushChildren(stack: Frame[], children: readonly HtmlNode[], hidden: boolean): void {
  for (let index = children.length - 1; index >= 0; index -= 1) stack.push({ node: children[index]!, hidden });
}

function openElement(node: HtmlElement, name: string, out: string[], rows: boolean[]): void {
  // Inside a row of several cells, paragraphs and breaks must not split the row's line.
  const inDataRow = rows.at(-1) === true;
  if (name === 'tr') {
    rows.push(node.children.filter((child) => child.type === ElementType.Tag && /^t[dh]$/i.test(child.name)).length > 1);
    out.push('\n');
  } else if (name === 'br') out.push(inDataRow ? ' ' : '\n');
  else if (name === 'li') out.push(inDataRow ? ' - ' : '\n- ');
  else if (name === 'td' || name === 'th') out.push(CELL);
  else if (BLOCK_TAGS.has(name)) out.push(inDataRow && name !== 'table' ? ' ' : '\n');
  else if (name === 'img') {
    // Image-only emails say what they are in their alt text.
    const alt = node.attribs.alt?.trim();
    if (alt) out.push(` ${alt} `);
  }
}

function closeElement(node: HtmlElement, out: string[], rows: boolean[]): void {
  const name = node.name.toLowerCase();
  // A row ends where the next one (or the table) starts a line; no blank line between rows.
  if (name === 'tr') rows.pop();
  else if (name === 'td' || name === 'th') out.push(CELL);
  else if (BLOCK_TAGS.has(name)) out.push(rows.at(-1) === true && name !== 'table' ? ' ' : '\n');
}

function isQuoteBlock(node: HtmlElement, name: string): boolean {
  if (name === 'blockquote' && node.attribs.type?.toLowerCase() === 'cite') return true;
  const classes = node.attribs.class;
  if (!classes) return false;
  return QUOTE_CLASSES.some((quoteClass) => classes.split(/\s+/).includes(quoteClass));
}

function isHiddenElement(node: HtmlElement, hiddenClasses: ReadonlySet<string>): boolean {
  const { attribs } = node;
  if (attribs.hidden !== undefined) return true;
  if (attribs.style && isHiddenStyle(attribs.style)) return true;
  if (hiddenClasses.size > 0 && attribs.class) {
    for (const name of attribs.class.split(/\s+/)) if (hiddenClasses.has(name)) return true;
  }
  return false;
}

/** True when a declaration block makes its element invisible to a reader. */
export function isHiddenStyle(style: string): boolean {
  const declarations = new Map<string, string>();
  for (const declaration of style.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon < 0) continue;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration.slice(colon + 1).replace(/!important/i, '').trim().toLowerCase();
    declarations.set(property, value);
  }
  const get = (property: string): string | undefined => declarations.get(property);
  if (get('display') === 'none') return true;
  if (get('visibility') === 'hidden' || get('visibility') === 'collapse') return true;
  if (get('mso-hide') === 'all') return true;
  if (isZero(get('opacity'))) return true;
  if (isUnreadableFontSize(get('font-size'))) return true;
  const collapsed = ['height', 'max-height', 'width', 'max-width'].some((property) => isZero(get(property)));
  if (collapsed && get('overflow') === 'hidden') return true;
  if (isFarOffscreen(get('text-indent'))) return true;
  const positioned = get('position') === 'absolute' || get('position') === 'fixed';
  if (positioned && (isFarOffscreen(get('left')) || isFarOffscreen(get('top')))) return true;
  return false;
}

function isZero(value: string | undefined): boolean {
  if (value === undefined) return false;
  const number = Number.parseFloat(value);
  return number === 0;
}

function isUnreadableFontSize(value: string | undefined): boolean {
  if (value === undefined) return false;
  const match = /^(-?[\d.]+)\s*(px|pt|em|rem|%)?/.exec(value);
  if (!match) return false;
  const size = Number.parseFloat(match[1]!);
  if (size <= 0) return true;
  const unit = match[2] ?? 'px';
  if (unit === 'px' || unit === 'pt') return size < 2;
  if (unit === '%') return size < 10;
  return size < 0.1;
}

function isFarOffscreen(value: string | undefined): boolean {
  if (value === undefined) return false;
  const number = Number.parseFloat(value);
  return Number.isFinite(number) && number <= -500;
}

/** Top-level `.name { … }` rules that hide; rules inside @media only hide on some screens. */
export function collectHiddenClasses(css: string, into: Set<string>): void {
  const source = css.replace(/<!--|-->/g, ' ').replace(/\/\*[\s\S]*?\*\//g, ' ');
  let depth = 0;
  let selectorStart = 0;
  let blockStart = 0;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (char === '{') {
      if (depth === 0) blockStart = index;
      depth += 1;
    } else if (char === '}') {
      depth = Math.max(0, depth - 1);
      if (depth === 0) {
        const selectors = source.slice(selectorStart, blockStart);
        const body = source.slice(blockStart + 1, index);
        if (!selectors.trimStart().startsWith('@') && isHiddenStyle(body)) {
          for (const selector of selectors.split(',')) {
            const match = /^\s*[a-z0-9*]*\.([\w-]+)\s*$/i.exec(selector);
            if (match) into.add(match[1]!);
          }
        }
        selectorStart = index + 1;
      }
    }
  }
}

function textOf(node: HtmlNode): string {
  if (!('children' in node)) return 'data' in node ? node.data : '';
  return node.children.map((child) => ('data' in child ? child.data : '')).join('');
}

/** Joins each line's table cells and drops the empty ones. */
function finishLines(raw: string): string {
  if (!raw.includes(CELL)) return raw;
  return raw
    .split('\n')
    .map((line) => {
      if (!line.includes(CELL)) return line;
      const cells = line.split(CELL).map((cell) => cell.trim()).filter((cell) => cell.length > 0);
      return cells.join(' | ');
    })
    .join('\n');
}
