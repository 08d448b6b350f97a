import { useEffect, useRef } from 'preact/hooks';
import { href } from '../lib/router.ts';

// The admin's own pages under one menu, so an admin's top bar keeps to one row: a <details>
// opens by keyboard and click alike; choosing an entry or Escape closes it.

export interface AdminEntry {
  path: string;
  label: string;
}

export function AdminMenu({ entries, active }: { entries: readonly AdminEntry[]; active: string }) {
  const box = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const close = (e: Event) => {
      const el = box.current;
      if (el?.open && !el.contains(e.target as Node)) el.open = false;
    };
    document.addEventListener('click', close);
    return () => document.removeEventListener('click', close);
  }, []);
  const current = entries.some((e) => e.path === active);
  return (
    <details
      ref={box}
      class="admin-menu"
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !box.current?.open) return;
        box.current.open = false;
        box.current.querySelector('summary')?.focus();
      }}
    >
      <summary class={current ? 'current' : undefined}>Admin</summary>
      <ul>
        {entries.map((n) => (
          <li key={n.path}>
            <a
              href={href(n.path)}
              aria-current={active === n.path ? 'page' : undefined}
              onClick={() => {
                if (box.current) box.current.open = false;
              }}
            >
              {n.label}
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}
