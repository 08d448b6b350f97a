export type PayloadCheck = { ok: true; value: Record<string, unknown> | null } | { ok: false; message: string };

/** The payload box must hold a JSON object (or nothing); checked before the request is sent. */
export function checkPayload(text: string): PayloadCheck {
  if (text.trim() === '') return { ok: true, value: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (value === null) return { ok: true, value: null };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'The payload must be a JSON object, like {"key": "value"}.' };
  }
  const size = new TextEncoder().encode(JSON.stringify(value)).length;
  if (size > 64 * 1024) return { ok: false, message: `The payload is ${size} bytes; the limit is 65536.` };
  return { ok: true, value: value as Record<string, unknown> };
}
