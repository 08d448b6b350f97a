/** An external reference, as a link only when it is an http(s) address (never `javascript:`). */
export function ExternalRef({ value }: { value: string | null }) {
  if (value === null || value === '') return <span class="muted">—</span>;
  let url: URL | null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
    return (
      <a href={url.href} target="_blank" rel="noopener noreferrer" class="clip">
        {value}
      </a>
    );
  }
  return <code class="clip">{value}</code>;
}
