import { isHttpUrl } from '../lib/conversation.ts';
import { visibleBidi } from './user-text.tsx';

// Comment bodies are markdown, shown as the characters they are: no HTML is ever made from them.
// The one thing made of them is a link, and only for an http or https address written out in full;
// `javascript:`, `data:` and the rest stay text.

// An address runs to the first space, quote, angle bracket or invisible format character (a bidi
// override inside an address would make its link point elsewhere than it reads); trailing
// punctuation (a full stop ending the sentence, the parenthesis closing a markdown link) is left
// out of it.
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`\p{Cf}]+/giu;
const TRAILING = /[).,;:!?\]}*_]+$/;

/** Opens in a new tab without giving the page it opens a handle on this one (noopener, noreferrer). */
export function ExternalLink(props: { url: string; children?: string }) {
  const label = props.children ?? props.url;
  if (!isHttpUrl(props.url)) return <bdi>{visibleBidi(label)}</bdi>;
  return (
    <a href={props.url} target="_blank" rel="noopener noreferrer nofollow" class="break">
      <bdi>{visibleBidi(label)}</bdi>
    </a>
  );
}

/** Text in which full http(s) addresses are links; everything else stays text. */
export function LinkedText({ text }: { text: string }) {
  const parts: (string | { url: string })[] = [];
  let at = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const url = m[0].replace(TRAILING, '');
    const start = m.index ?? 0;
    if (start > at) parts.push(text.slice(at, start));
    parts.push({ url });
    at = start + url.length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return (
    <bdi class="prewrap">
      {parts.map((p, i) => (typeof p === 'string' ? visibleBidi(p) : <ExternalLink key={i} url={p.url} />))}
    </bdi>
  );
}
