import { useEffect, useRef, useState } from 'preact/hooks';
import { WhoAmI } from './components/who-am-i.tsx';
import { useLiveState } from './lib/live.ts';
import { href, useRoute } from './lib/router.ts';
import { currentUser, saveUser } from './lib/user.ts';
import { AgentsPage } from './pages/agents.tsx';
import { BoardPage } from './pages/board.tsx';
import { ClassifyPage } from './pages/classify.tsx';
import { ItemPage } from './pages/item.tsx';
import { ProjectsPage } from './pages/projects.tsx';
import { SubmitPage } from './pages/submit.tsx';

const NAV = [
  { path: '/', label: 'Board' },
  { path: '/new', label: 'Submit' },
  { path: '/agents', label: 'Agents' },
  { path: '/projects', label: 'Projects' },
  { path: '/classify', label: 'Classify' },
] as const;

function section(path: string): string {
  if (path.startsWith('/items/')) return '/';
  if (path.startsWith('/projects')) return '/projects';
  return path;
}

export function App() {
  const route = useRoute();
  const [user, setUser] = useState(currentUser());
  const [askUser, setAskUser] = useState(user === null);
  const live = useLiveState();
  const active = section(route.path);

  // A new page moves focus to its content, as a page load would, so a screen reader starts
  // there; filter changes on the same page keep focus where it is.
  const firstPath = useRef(true);
  useEffect(() => {
    if (firstPath.current) {
      firstPath.current = false;
      return;
    }
    window.scrollTo(0, 0);
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [route.path]);

  useEffect(() => {
    const title = NAV.find((n) => n.path === active)?.label ?? 'agentdesk';
    document.title = `${title} · agentdesk`;
  }, [active]);

  let page;
  const itemMatch = /^\/items\/([^/]+)$/.exec(route.path);
  if (itemMatch) page = <ItemPage id={decodeURIComponent(itemMatch[1] ?? '')} />;
  else if (route.path === '/') page = <BoardPage params={route.params} />;
  else if (route.path === '/new') page = <SubmitPage params={route.params} />;
  else if (route.path === '/agents') page = <AgentsPage />;
  else if (route.path === '/projects') page = <ProjectsPage />;
  else if (route.path === '/classify') page = <ClassifyPage />;
  else
    page = (
      <section>
        <h1>Not found</h1>
        <p>
          There is no page here. <a href="#/">Go to the board</a>.
        </p>
      </section>
    );

  return (
    <>
      <a class="skip" href="#main" onClick={(e) => {
        // the hash is the router's, so move focus by hand instead of navigating
        e.preventDefault();
        document.getElementById('main')?.focus();
      }}>
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="#/">
          agentdesk
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((n) => (
              <li key={n.path}>
                <a href={href(n.path)} aria-current={active === n.path ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="topbar-end">
          <span class={`live live-${live}`} role="status" title="Live updates">
            <span class="dot" aria-hidden="true" />
            {live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting…' : 'Offline'}
          </span>
          <button type="button" class="link user" onClick={() => setAskUser(true)} aria-label={`Signed in as ${user ?? 'nobody'}; change name`}>
            {user ?? 'Set name'}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
      <WhoAmI
        open={askUser}
        initial={user ?? ''}
        onDone={(name) => {
          saveUser(name);
          setUser(name);
          setAskUser(false);
        }}
        {...(user !== null ? { onCancel: () => setAskUser(false) } : {})}
      />
    </>
  );
}
