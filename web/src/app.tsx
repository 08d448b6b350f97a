import { useEffect, useRef, useState } from 'preact/hooks';
import { WhoAmI } from './components/who-am-i.tsx';
import { startLive, stopLive, useLiveState } from './lib/live.ts';
import { href, useRoute } from './lib/router.ts';
import { useTitle } from './lib/title.ts';
import { can, loadSession, type SessionState, signOut, useSession } from './lib/session.ts';
import { currentUser, saveUser } from './lib/user.ts';
import { mayAnswer } from './lib/conversation.ts';
import { useNeedsYouCount } from './lib/needs-you.ts';
import type { Access } from '../../src/auth/roles.ts';
import { AgentsPage } from './pages/agents.tsx';
import { BoardPage } from './pages/board/board.tsx';
import { DashboardPage } from './pages/dashboard/dashboard.tsx';
import { ClassifyPage } from './pages/classify.tsx';
import { ItemPage } from './pages/item/item.tsx';
import { MailboxPage } from './pages/mailbox/mailbox.tsx';
import { MailboxesPage } from './pages/mailboxes.tsx';
import { NeedsYouPage } from './pages/needs-you/needs-you.tsx';
import { MyNotificationsPage } from './pages/people/my-notifications.tsx';
import { PeoplePage } from './pages/people/people.tsx';
import { ProjectsPage } from './pages/projects/projects.tsx';
import { SchedulesPage } from './pages/schedules/schedules.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { SubmitPage } from './pages/submit.tsx';
import { TokensPage } from './pages/tokens/tokens.tsx';
import { WebhooksPage } from './pages/webhooks/webhooks.tsx';
import { SearchPage } from './pages/search/search.tsx';
import { AdminMenu } from './components/admin-menu.tsx';
import { HeaderSearch } from './components/header-search.tsx';

// Each page shows in the menu only for the roles whose requests it makes; the dashboard first, the
// landing page of every reader. Entries marked `admin` go under an Admin menu for an admin (its bar
// keeps to one row); a reader who is no admin still sees Mailboxes in the bar.
const NAV: ReadonlyArray<{ path: string; label: string; access: Access; answers?: true; admin?: true }> = [
  { path: '/dashboard', label: 'Dashboard', access: 'read' },
  { path: '/needs-you', label: 'Needs you', access: 'read', answers: true },
  { path: '/', label: 'Board', access: 'read' },
  { path: '/new', label: 'Submit', access: 'submit' },
  { path: '/agents', label: 'Agents', access: 'read' },
  { path: '/projects', label: 'Projects', access: 'read' },
  { path: '/schedules', label: 'Schedules', access: 'read' },
  { path: '/classify', label: 'Classify', access: 'classify' },
  { path: '/mailboxes', label: 'Mailboxes', access: 'read', admin: true },
  { path: '/tokens', label: 'Tokens', access: 'admin', admin: true },
  { path: '/people', label: 'People', access: 'admin', admin: true },
  { path: '/webhooks', label: 'Webhooks', access: 'admin', admin: true },
  { path: '/notifications', label: 'My notifications', access: 'answer' },
];

function section(path: string): string {
  if (path.startsWith('/items/')) return '/';
  if (path.startsWith('/projects')) return '/projects';
  if (path.startsWith('/mailboxes')) return '/mailboxes';
  return path;
}

export function App() {
  const session = useSession();
  if (session.auth === null) return <p class="muted boot">Loading…</p>;
  if (session.auth === 'tokens' && session.principal === null) return <SignInPage />;
  return <Desk session={session} />;
}

function Desk({ session }: { session: SessionState }) {
  const route = useRoute();
  const [user, setUser] = useState(currentUser());
  const open = session.auth === 'off';
  const [askUser, setAskUser] = useState(open && user === null);
  const live = useLiveState();
  const answers = mayAnswer(session);
  const nav = NAV.filter((n) => can(session, n.access) && (!n.answers || answers));
  const grouped = can(session, 'admin');
  const bar = grouped ? nav.filter((n) => !n.admin) : nav;
  const adminEntries = grouped ? nav.filter((n) => n.admin) : [];
  const waiting = useNeedsYouCount(answers && can(session, 'read'));
  // The address without a hash (a fresh visit, just signed in) is the landing page: the first
  // page the role can use, the dashboard for readers. `#/` stays the board, so its shared and
  // bookmarked filter links keep working; a role that cannot read it (intake) goes home too.
  const home = nav[0]?.path ?? '/';
  const bare = location.hash === '' || location.hash === '#';
  const reads = can(session, 'read');
  const path = bare || (route.path === '/' && !reads) ? home : route.path;
  const active = section(path);

  // The stream runs while someone who may read is signed in; it sends the session cookie by itself.
  useEffect(() => {
    if (!reads) return undefined;
    startLive();
    return () => stopLive();
  }, [reads]);
  // A stream the service refused (revoked, expired): ask who we are; a 401 means sign in again.
  useEffect(() => {
    if (live === 'offline' && !open && reads) void loadSession();
  }, [live, open, reads]);
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

  // Each page is keyed by its subject (the item, the mailbox, the project a new item goes to):
  // a different subject is a new page, so no dialog, draft or answer of the last one survives
  // into it. Kept state once let a Delete confirmation opened on one item delete the next.
  let page;
  const itemMatch = /^\/items\/([^/]+)$/.exec(path);
  const mailboxMatch = /^\/mailboxes\/([^/]+)$/.exec(path);
  // A page of one subject (an item, a mailbox) names itself in the title once it has loaded.
  const known = NAV.some((n) => n.path === path);
  const title = path === '/search' ? 'Search' : known ? (NAV.find((n) => n.path === path)?.label ?? null) : 'Not found';
  useTitle(itemMatch || mailboxMatch ? null : title);
  if (itemMatch) {
    const id = decodeURIComponent(itemMatch[1] ?? '');
    page = <ItemPage key={`item ${id}`} id={id} />;
  } else if (mailboxMatch) {
    const id = decodeURIComponent(mailboxMatch[1] ?? '');
    page = <MailboxPage key={`mailbox ${id}`} id={id} />;
  } else if (path === '/mailboxes') page = <MailboxesPage />;
  else if (path === '/dashboard') page = <DashboardPage />;
  else if (path === '/needs-you') page = <NeedsYouPage params={route.params} />;
  else if (path === '/') page = <BoardPage params={route.params} />;
  else if (path === '/new')
    page = <SubmitPage key={`new ${route.params.get('project_id') ?? ''}`} params={route.params} />;
  else if (path === '/agents') page = <AgentsPage />;
  else if (path === '/projects') page = <ProjectsPage />;
  else if (path === '/schedules') page = <SchedulesPage params={route.params} />;
  else if (path === '/classify') page = <ClassifyPage />;
  else if (path === '/tokens') page = <TokensPage />;
  else if (path === '/people') page = <PeoplePage />;
  else if (path === '/webhooks') page = <WebhooksPage />;
  else if (path === '/notifications') page = <MyNotificationsPage />;
  else if (path === '/search' && reads) page = <SearchPage params={route.params} />;
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
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          // the hash is the router's, so move focus by hand instead of navigating
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={href(home)}>
          agentdesk
        </a>
        <nav aria-label="Main">
          <ul>
            {bar.map((n) => (
              <li key={n.path}>
                <a href={href(n.path)} aria-current={active === n.path ? 'page' : undefined}>
                  {n.label}
                  {n.answers && waiting !== null && waiting > 0 && (
                    <span class="nav-badge" data-testid="needs-you-count">
                      <span class="visually-hidden">, waiting: </span>
                      {waiting}
                    </span>
                  )}
                </a>
              </li>
            ))}
            {adminEntries.length > 0 && (
              <li>
                <AdminMenu entries={adminEntries} active={active} />
              </li>
            )}
          </ul>
        </nav>
        <div class="topbar-end">
          {reads && <HeaderSearch />}
          {reads && (
            <span class={`live live-${live}`} role="status" title="Live updates">
              <span class="dot" aria-hidden="true" />
              {/* A slot as wide as the longest label: a change of state never re-wraps the bar. */}
              <span class="live-label">
                {live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting…' : 'Offline'}
              </span>
            </span>
          )}
          {open ? (
            <button
              type="button"
              class="link user"
              onClick={() => setAskUser(true)}
              aria-label={`Signed in as ${user ?? 'nobody'}; change name`}
            >
              {user ?? 'Set name'}
            </button>
          ) : (
            <>
              <span class="user" data-testid="whoami">
                {session.principal?.name} <span class="pill role">{session.principal?.role}</span>
              </span>
              <button type="button" class="link" onClick={() => void signOut()}>
                Sign out
              </button>
            </>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
      <WhoAmI
        open={open && askUser}
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
