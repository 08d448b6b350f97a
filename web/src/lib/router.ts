import { useEffect, useState } from 'preact/hooks';

// Hash routes (`#/items/<id>`, `#/?status=queued`) because the API owns `/work` and `/projects`
// on the same origin: the work service only has to serve index.html at `/`, and any view with
// its filters can still be shared and reloaded.

export interface Route {
  path: string;
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
  return { path: path.startsWith('/') ? path : `/${path}`, params };
}

export function href(path: string, params?: URLSearchParams | Record<string, string>): string {
  const qs = params ? new URLSearchParams(params).toString() : '';
  return `#${path}${qs ? `?${qs}` : ''}`;
}

export function navigate(to: string, replace = false): void {
  if (replace) {
    history.replaceState(history.state, '', to);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = to.replace(/^#/, '');
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
