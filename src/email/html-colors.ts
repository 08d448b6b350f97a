// Text painted in the colour of what is behind it (white on white, fully transparent) is as hidden as
// `display:none`, and as good a carrier for prompt injection. html-to-text.ts keeps one `Paint` per open
// element and reads `unreadable` for each text.

import { classSelector, forEachRule } from './html-visibility.js';

export interface Rgba {
  r: number;
  g: number;
  b: number;
  /** 0 (transparent) to 1 (opaque). */
  a: number;
}

export interface Paint {
  /** The text colour; null when unknown. */
  readonly color: Rgba | null;
  /** The opaque colour behind the element; null when unknown (an image, a gradient). */
  readonly background: Rgba | null;
  /** Text in this paint cannot be told from what is behind it. */
  readonly unreadable: boolean;
}

/** What the message's style sheets may paint: elements of these classes, or anything at all. */
export interface SheetPaint {
  classes: Set<string>;
  /** A rule on tags, ids or descendants sets colours: no element's colours are certain. */
  anything: boolean;
}

/** What one style attribute says about colours; undefined where it says nothing. */
interface StyleColors {
  color: Rgba | null | undefined;
  /** The element's own background layer, still to be laid over its parent's. */
  background: Rgba | null | undefined;
}

/** Channels this close to the background are unreadable: #fefefe on white is a classic. */
const INDISTINCT = 16;

/** The CSS names, of the 148, that mail is likely to use: the basic sixteen and the near-whites. */
const NAMED: Readonly<Record<string, string>> = {
  black: '000000',
  white: 'ffffff',
  silver: 'c0c0c0',
  gray: '808080',
  grey: '808080',
  red: 'ff0000',
  maroon: '800000',
  yellow: 'ffff00',
  olive: '808000',
  lime: '00ff00',
  green: '008000',
  aqua: '00ffff',
  cyan: '00ffff',
  teal: '008080',
  blue: '0000ff',
  navy: '000080',
  fuchsia: 'ff00ff',
  magenta: 'ff00ff',
  purple: '800080',
  orange: 'ffa500',
  snow: 'fffafa',
  ivory: 'fffff0',
  ghostwhite: 'f8f8ff',
  whitesmoke: 'f5f5f5',
  floralwhite: 'fffaf0',
  seashell: 'fff5ee',
  mintcream: 'f5fffa',
  azure: 'f0ffff',
  aliceblue: 'f0f8ff',
  lavenderblush: 'fff0f5',
  honeydew: 'f0fff0',
  linen: 'faf0e6',
  oldlace: 'fdf5e6',
  beige: 'f5f5dc',
  cornsilk: 'fff8dc',
  gainsboro: 'dcdcdc',
  lightgray: 'd3d3d3',
  lightgrey: 'd3d3d3',
  darkgray: 'a9a9a9',
  darkgrey: 'a9a9a9',
  dimgray: '696969',
  dimgrey: '696969',
};

/** What else a `background` shorthand may hold: repeat, attachment, position, size, box. */
const NOT_A_COLOR =
  /^(?:none|initial|inherit|unset|no-repeat|repeat(?:-x|-y)?|space|round|scroll|fixed|local|top|bottom|left|right|center|cover|contain|auto|border-box|padding-box|content-box|[-+]?[\d.]+(?:px|pt|em|rem|%)?)$/i;

const COLOR_DECLARATION = /(?:^|[;{\s])color\s*:\s*([^;]+)/gi;
const BACKGROUND_DECLARATION = /(?:^|[;{\s])background(-color|-image)?\s*:\s*([^;]+)/gi;

function rgb(r: number, g: number, b: number, a = 1): Rgba {
  return { r, g, b, a };
}

const TRANSPARENT = rgb(0, 0, 0, 0);

/** What a mail client shows when the message says nothing: black on white. */
export const DEFAULT_PAINT: Paint = paint(rgb(0, 0, 0), rgb(255, 255, 255));
const UNKNOWN_PAINT: Paint = paint(null, null);

/** Notes, for `paintOf`, which elements a style sheet may paint; inside @media rules too. */
export function collectSheetPaint(css: string, into: SheetPaint): void {
  forEachRule(css, (selectors, block) => {
    if (!/color|background/i.test(block)) return;
    for (const selector of selectors.split(',')) {
      const name = classSelector(selector);
      if (name !== null) into.classes.add(name);
      else if (selector.trim() !== '') into.anything = true;
    }
  });
}

/** Templated mail repeats a handful of style attributes on thousands of elements. */
const styleCache = new Map<string, StyleColors>();
const STYLE_CACHE_SIZE = 2_000;

/**
 * The element's paint, given its parent's; the parent's own object when nothing changes. Only what is certain
 * counts: an unreadable colour, a background image or gradient, a link without its own colour (clients paint
 * those blue) or a style sheet's colours leave the text visible; hiding what a reader sees costs more.
 */
export function paintOf(name: string, attribs: Record<string, string>, parent: Paint, sheet: SheetPaint): Paint {
  if (sheet.anything) return UNKNOWN_PAINT;
  if (sheet.classes.size > 0 && attribs.class?.split(/\s+/).some((name) => sheet.classes.has(name)))
    parent = UNKNOWN_PAINT;
  let color = parent.color;
  // Links are painted by the client, not inherited: unknown unless the message sets one.
  if (name === 'a' && attribs.href !== undefined) color = null;
  if (name === 'font' && attribs.color !== undefined) color = parseColor(attribs.color, true);
  if (name === 'body' && attribs.text !== undefined) color = parseColor(attribs.text, true);
  let background = parent.background;
  if (attribs.bgcolor !== undefined) background = over(parseColor(attribs.bgcolor, true), background);
  // The legacy attribute for a background image.
  if (attribs.background !== undefined) background = null;
  const style = attribs.style;
  if (style !== undefined && /color|background/i.test(style)) {
    const declared = styleColors(style);
    if (declared.color !== undefined) color = declared.color;
    if (declared.background !== undefined) background = over(declared.background, background);
  }
  if (color === parent.color && background === parent.background) return parent;
  return paint(color, background);
}

function paint(color: Rgba | null, background: Rgba | null): Paint {
  return { color, background, unreadable: isUnreadable(color, background) };
}

function isUnreadable(color: Rgba | null, background: Rgba | null): boolean {
  if (color === null || background === null) return false;
  const seen = over(color, background)!;
  return (
    Math.max(Math.abs(seen.r - background.r), Math.abs(seen.g - background.g), Math.abs(seen.b - background.b)) <
    INDISTINCT
  );
}

function styleColors(style: string): StyleColors {
  let colors = styleCache.get(style);
  if (colors) return colors;
  const declared = lastDeclaration(COLOR_DECLARATION, style, 1);
  colors = {
    color: declared === null || /^(inherit|currentcolor)$/i.test(declared) ? undefined : parseColor(declared),
    background: backgroundOf(style),
  };
  if (styleCache.size >= STYLE_CACHE_SIZE) styleCache.clear();
  styleCache.set(style, colors);
  return colors;
}

/** The background layer the style declares: undefined for none, null when it cannot be known. */
function backgroundOf(style: string): Rgba | null | undefined {
  let color: Rgba | null | undefined;
  let image = false;
  for (const match of style.matchAll(BACKGROUND_DECLARATION)) {
    const value = stripImportant(match[2]!);
    const property = match[1]?.toLowerCase();
    if (property === '-image') {
      image ||= !/^none$/i.test(value);
      continue;
    }
    if (property === '-color') {
      color = parseColor(value);
      continue;
    }
    if (/url\(|gradient\(/i.test(value)) image = true;
    // The shorthand lists its parts in any order, and without a colour it means transparent;
    // a part this cannot read may be a colour it does not know, so the result is unknown.
    const parts = splitTopLevel(value);
    const named = parts.map((part) => parseColor(part)).find((parsed) => parsed !== null);
    color = named ?? (parts.every((part) => NOT_A_COLOR.test(part)) ? TRANSPARENT : null);
  }
  return image ? null : color;
}

/** `top` composited over `bottom`; null when the result cannot be known. */
function over(top: Rgba | null, bottom: Rgba | null): Rgba | null {
  if (top === null) return null;
  if (top.a >= 1) return top;
  if (bottom === null) return null;
  const mix = (upper: number, lower: number): number => upper * top.a + lower * (1 - top.a);
  return rgb(mix(top.r, bottom.r), mix(top.g, bottom.g), mix(top.b, bottom.b));
}

function lastDeclaration(pattern: RegExp, style: string, group: number): string | null {
  let value: string | null = null;
  for (const match of style.matchAll(pattern)) value = stripImportant(match[group]!);
  return value;
}

function stripImportant(value: string): string {
  return value.replace(/!\s*important\s*$/i, '').trim();
}

/** Splits on spaces outside parentheses: `url(a b) #fff` → [`url(a b)`, `#fff`]. */
function splitTopLevel(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of value) {
    if (char === '(') depth += 1;
    else if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && /\s/.test(char)) {
      if (current) parts.push(current);
      current = '';
    } else current += char;
  }
  if (current) parts.push(current);
  return parts;
}

/**
 * A CSS colour, or null for anything this does not read with certainty. `legacy`: an HTML
 * attribute (bgcolor, font color), where six hex digits without `#` count too.
 */
export function parseColor(raw: string, legacy = false): Rgba | null {
  const value = raw.trim().toLowerCase();
  if (value === 'transparent') return TRANSPARENT;
  const named = NAMED[value];
  if (named !== undefined) return fromHex(named);
  const hex =
    /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(value) ?? (legacy ? /^([0-9a-f]{6})$/.exec(value) : null);
  if (hex) return fromHex(hex[1]!);
  const call = /^(rgba?|hsla?)\(\s*([^)]*)\)$/.exec(value);
  if (!call) return null;
  const args = call[2]!.split(/\s*[,/]\s*|\s+/).filter(Boolean);
  if (args.length < 3 || args.length > 4) return null;
  const alpha = args[3] === undefined ? 1 : fraction(args[3], 1);
  if (alpha === null) return null;
  if (call[1]!.startsWith('rgb')) {
    const channels = args.slice(0, 3).map((arg) => fraction(arg, 255));
    if (channels.some((channel) => channel === null)) return null;
    const [r, g, b] = channels as number[];
    return rgb(clamp(r!, 255), clamp(g!, 255), clamp(b!, 255), clamp(alpha, 1));
  }
  const hue = Number.parseFloat(args[0]!);
  const saturation = fraction(args[1]!, 1);
  const lightness = fraction(args[2]!, 1);
  if (
    !Number.isFinite(hue) ||
    saturation === null ||
    lightness === null ||
    !args[1]!.endsWith('%') ||
    !args[2]!.endsWith('%')
  )
    return null;
  return fromHsl(hue, clamp(saturation, 1), clamp(lightness, 1), clamp(alpha, 1));
}

/** `50%` of `scale`, or a plain number taken as is. */
function fraction(arg: string, scale: number): number | null {
  const number = Number.parseFloat(arg);
  if (!Number.isFinite(number) || !/^-?[\d.]+%?$/.test(arg)) return null;
  return arg.endsWith('%') ? (number / 100) * scale : number;
}

function clamp(value: number, max: number): number {
  return Math.min(max, Math.max(0, value));
}

function fromHex(digits: string): Rgba {
  const full = digits.length <= 4 ? [...digits].map((digit) => digit + digit).join('') : digits;
  const channel = (index: number): number => Number.parseInt(full.slice(index * 2, index * 2 + 2), 16);
  return rgb(channel(0), channel(1), channel(2), full.length === 8 ? channel(3) / 255 : 1);
}

function fromHsl(hue: number, saturation: number, lightness: number, alpha: number): Rgba {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const channel = (n: number): number => {
    const k = (n + hue / 30) % 12;
    return 255 * (lightness - (chroma / 2) * Math.max(-1, Math.min(k - 3, 9 - k, 1)));
  };
  return rgb(channel(0), channel(8), channel(4), alpha);
}
