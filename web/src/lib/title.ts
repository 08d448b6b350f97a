import { useEffect } from 'preact/hooks';

const APP = 'agentdesk';
const MAX = 60;

/** The tab's title for this page: what it shows first, then the app (`Fix the login test · agentdesk`). */
export function pageTitle(subject: string): string {
  const flat = subject.replace(/\s+/g, ' ').trim();
  const short = flat.length > MAX ? `${flat.slice(0, MAX - 1)}…` : flat;
  return short === '' ? APP : `${short} · ${APP}`;
}

/** Sets the document's title while the page is shown; null leaves it to the page's parent. */
export function useTitle(subject: string | null): void {
  useEffect(() => {
    if (subject !== null) document.title = pageTitle(subject);
  }, [subject]);
}
