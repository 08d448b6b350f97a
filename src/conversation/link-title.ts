// A comment link's title is shown as its text, so a title that is itself an address could show
// one place and open another ("paypal.com" opening a look-alike). Such a title must name the
// host the link opens; the UI also shows that host beside every titled link.

/** A whole title written as an address: with a scheme, or a dotted host name, maybe a port and a path. */
const WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\/\S*$/i;
const HOST_FIRST = /^(?:[^\s./:@]+\.)+[^\s./:@\d][^\s./:@]*(?::\d+)?(?:[/?#]\S*)?$/i;

function hostOf(address: string): { host: string; userinfo: boolean } | null {
  try {
    const url = new URL(address);
    return { host: url.hostname.replace(/^www\./, ''), userinfo: url.username !== '' || url.password !== '' };
  } catch {
    return null;
  }
}

/** The last segment of the URL's path, decoded: a title that repeats it names a file, not a host. */
function lastSegment(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).at(-1) ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * What is wrong with a link's title, or null when nothing: a title that is an address must be
 * one of the host the link opens, with no user name before it (`paypal.com@evil.example`).
 * Host names are compared as URLs read them (punycode, lower case), `www.` aside.
 */
export function misleadingTitle(title: string, url: string): string | null {
  const text = title.trim();
  const target = new URL(url);
  let named: ReturnType<typeof hostOf> = null;
  if (WITH_SCHEME.test(text)) named = hostOf(text);
  else if (HOST_FIRST.test(text) && text !== lastSegment(target)) named = hostOf(`http://${text}`);
  if (named === null) return null;
  const opens = target.hostname.replace(/^www\./, '');
  if (named.userinfo) return 'is an address with a user name in it; use the host the link opens, or words';
  if (named.host === opens) return null;
  return `reads as an address of ${named.host} but the link opens ${target.hostname}; use words, or the address it opens`;
}
