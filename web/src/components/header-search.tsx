import { useEffect, useRef, useState } from 'preact/hooks';
import { href, navigate } from '../lib/router.ts';

// The search box of the top bar: `/` reaches it from anywhere but a field being typed in, and
// Enter opens the Search page with the query in the address.

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return (
    target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement
  );
}

export function HeaderSearch() {
  const box = useRef<HTMLInputElement>(null);
  const [q, setQ] = useState('');
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      e.preventDefault();
      box.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <form
      role="search"
      aria-label="Search"
      class="header-search"
      onSubmit={(e) => {
        e.preventDefault();
        const text = q.trim();
        if (text === '') return;
        navigate(href('/search', { q: text }));
        setQ('');
        box.current?.blur();
      }}
    >
      <input
        ref={box}
        type="search"
        aria-label="Search items"
        aria-keyshortcuts="/"
        placeholder="Search  /"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
      />
    </form>
  );
}
