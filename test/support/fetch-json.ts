// Requests to a real server over TCP, for process-level tests. A network failure is an answer
// too (status 0 with the error's code), so a burst against a dying server can be tallied.

export interface Answer<T = any> {
  /** 0 when no HTTP response came back. */
  status: number;
  contentType: string;
  body: T;
  /** The network error's code (ECONNRESET, ECONNREFUSED, …) when status is 0. */
  error?: string;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export async function fetchJson<T = any>(
  baseUrl: string,
  method: Method,
  path: string,
  body?: unknown,
  timeoutMs = 15_000,
): Promise<Answer<T>> {
  try {
    const response = await fetch(baseUrl + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text so an assertion can show it
    }
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: parsed as T };
  } catch (error) {
    return { status: 0, contentType: '', body: undefined as T, error: networkCode(error) };
  }
}

function networkCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).name ?? 'unknown';
}

/** Runs `task` for 0..count-1 with at most `concurrency` at once; results in index order. */
export async function pooled<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
