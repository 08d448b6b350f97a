// Text that users typed (descriptions, project names) can carry Unicode bidi controls: an override
// (U+202E) makes "invoice‮fdp.exe" display as "invoiceexe.pdf", and an unclosed embedding reorders
// whatever the page shows after it. So such text is shown with its controls made visible.

// LRE RLE PDF LRO RLO, then LRI RLI FSI PDI. Plain marks (LRM, RLM, ALM) only nudge neutral
// characters and are left alone.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** The text with every bidi embedding, override or isolate shown as ‹U+202E›. */
export function visibleBidi(text: string): string {
  return text.replace(BIDI_CONTROLS, (control) => `\u2039U+${control.charCodeAt(0).toString(16).toUpperCase()}\u203a`);
}

/**
 * User text in flowing content: isolated in <bdi>, with its bidi controls made visible, so
 * right-to-left scripts still display correctly but cannot reorder the page around them.
 */
export function UserText(props: { text: string }) {
  return <bdi>{visibleBidi(props.text)}</bdi>;
}
