// Deciding what a reader of an HTML email would not see: inline styles and class rules that
// hide an element. Written as direct regex tests because nearly every element of a templated
// email carries a style attribute, and this runs once per element of a 5 MB message.

const DISPLAY_NONE = /(?:^|[;{\s])display\s*:\s*none\b/i;
const VISIBILITY_HIDDEN = /(?:^|[;{\s])visibility\s*:\s*(?:hidden|collapse)\b/i;
const MSO_HIDE = /mso-hide\s*:\s*all\b/i;
const OPACITY_ZERO = /(?:^|[;{\s])opacity\s*:\s*(?:0+(?:\.0*)?|\.0+)\s*%?\s*(?:!important\s*)?(?:;|$)/i;
const FONT_SIZE = /(?:^|[;{\s])font-size\s*:\s*(-?[\d.]+)\s*(px|pt|em|rem|%)?/i;
const COLLAPSED_BOX =
  /(?:^|[;{\s])(?:max-)?(?:height|width)\s*:\s*0(?:\.0*)?\s*(?:px|pt|em|rem|%)?\s*(?:!important\s*)?(?:;|$)/i;
const OVERFLOW_HIDDEN = /(?:^|[;{\s])overflow\s*:\s*hidden\b/i;
const TEXT_INDENT_AWAY = /(?:^|[;{\s])text-indent\s*:\s*-\d{3,}/i;
const POSITIONED = /(?:^|[;{\s])position\s*:\s*(?:absolute|fixed)\b/i;
const OFFSET_AWAY = /(?:^|[;{\s])(?:left|top)\s*:\s*-\d{3,}/i;
/** Cheap first test: a declaration block without any of these words cannot hide anything. */
const MAY_HIDE = /none|hidden|collapse|mso-hide|opacity|font-size|height|width|indent|-\d{3}/i;

/** True when a declaration block makes its element invisible to a reader. */
export function isHiddenStyle(style: string): boolean {
  if (!MAY_HIDE.test(style)) return false;
  if (DISPLAY_NONE.test(style) || VISIBILITY_HIDDEN.test(style) || MSO_HIDE.test(style)) return true;
  if (OPACITY_ZERO.test(style)) return true;
  const fontSize = FONT_SIZE.exec(style);
  if (fontSize && isUnreadableFontSize(Number.parseFloat(fontSize[1]!), fontSize[2]?.toLowerCase() ?? 'px'))
    return true;
  if (COLLAPSED_BOX.test(style) && OVERFLOW_HIDDEN.test(style)) return true;
  if (TEXT_INDENT_AWAY.test(style)) return true;
  return POSITIONED.test(style) && OFFSET_AWAY.test(style);
}

function isUnreadableFontSize(size: number, unit: string): boolean {
  if (!Number.isFinite(size)) return false;
  if (size <= 0) return true;
  if (unit === 'px' || unit === 'pt') return size < 2;
  if (unit === '%') return size < 10;
  return size < 0.1;
}

/** Top-level `.name { … }` rules that hide; rules inside @media only hide on some screens. */
export function collectHiddenClasses(css: string, into: Set<string>): void {
  forEachRule(css, (selectors, block, nested) => {
    if (nested || !isHiddenStyle(block)) return;
    for (const selector of selectors.split(',')) {
      const name = classSelector(selector);
      if (name !== null) into.add(name);
    }
  });
}

/** The class a selector names when it is only `.name` or `tag.name`; else null. */
export function classSelector(selector: string): string | null {
  return /^\s*[a-z0-9*]*\.([\w-]+)\s*$/i.exec(selector)?.[1] ?? null;
}

/**
 * Calls `visit` for each rule of a style sheet with its selectors, its declarations, and whether
 * it sits inside an at-rule (@media, @supports). One level of at-rules only: deeper ones are
 * skipped, so a hostile sheet cannot make this recurse without end.
 */
export function forEachRule(
  css: string,
  visit: (selectors: string, block: string, nested: boolean) => void,
  nested = false,
): void {
  const source = nested ? css : css.replace(/<!--|-->/g, ' ').replace(/\/\*[\s\S]*?\*\//g, ' ');
  let depth = 0;
  let selectorStart = 0;
  let blockStart = 0;
  for (let index = 0; index < source.length; index += 1) {
    const char = source.charCodeAt(index);
    if (char === 123 /* { */) {
      if (depth === 0) blockStart = index;
      depth += 1;
    } else if (char === 125 /* } */) {
      depth = Math.max(0, depth - 1);
      if (depth !== 0) continue;
      const selectors = source.slice(selectorStart, blockStart);
      const block = source.slice(blockStart + 1, index);
      if (!selectors.trimStart().startsWith('@')) visit(selectors, block, nested);
      else if (!nested) forEachRule(block, visit, true);
      selectorStart = index + 1;
    }
  }
}

/** Tags that are void or that the parser closes implicitly, so they do not deepen the tree. */
const NON_NESTING = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
  'p',
  'li',
  'td',
  'th',
  'tr',
  'option',
  'dt',
  'dd',
]);

/**
 * Whether elements nest deeper than `limit`. No deeper than there are tags, so a message with
 * few '<' (nearly every real one) is cleared by counting them, without the tag scan.
 */
export function nestsDeeperThan(html: string, limit: number): boolean {
  let tags = 0;
  for (let at = html.indexOf('<'); at !== -1; at = html.indexOf('<', at + 1)) {
    if (++tags > limit) return maxNestingDepth(html) > limit;
  }
  return false;
}

/** How deep elements nest, by a linear scan: `[^<>]*` cannot backtrack past the next tag. */
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
