import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

// The dashboard's one answer is large JSON that compresses well; the UI's files are already
// served pre-compressed. This hook compresses that route alone: the hot paths (claim, heartbeat,
// moves) answer a few hundred bytes and stay untouched.

/** Below this, compressing costs more than the bytes it saves. */
export const COMPRESS_MIN_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
type Coding = 'br' | 'gzip';

/** The coding the client accepts that we prefer (br, then gzip); null when it takes neither. */
export function pickCoding(acceptEncoding: string | undefined): Coding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (coding: Coding) => weights.get(coding) ?? (weights.has('*') ? weights.get('*')! : 0);
  const best = (['br', 'gzip'] as const).filter((c) => weight(c) > 0).sort((a, b) => weight(b) - weight(a));
  return best[0] ?? null;
}

/** An onSend hook: a JSON answer over COMPRESS_MIN_BYTES goes out br- or gzip-encoded when the client accepts it. */
export async function compressJson(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const type = String(reply.getHeader('content-type') ?? '');
  if (!type.startsWith('application/json') || reply.getHeader('content-encoding') !== undefined) return payload;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  reply.header('vary', 'accept-encoding');
  if (Buffer.byteLength(payload) < COMPRESS_MIN_BYTES) return payload;
  const coding = pickCoding(request.headers['accept-encoding']);
  if (coding === null) return payload;
  const body =
    coding === 'br'
      ? // quality 5: most of the gain of 11 at a small part of its CPU time, on every dashboard load
        await brotli(payload, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
        })
      : await gzipAsync(payload, { level: 6 });
  reply.header('content-encoding', coding);
  reply.removeHeader('content-length');
  return body;
}
