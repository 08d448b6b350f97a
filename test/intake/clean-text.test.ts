import { describe, expect, it } from 'vitest';
import { cleanDeep, cleanText, cutText, cutTextEnd } from '../../src/intake/clean-text.js';

// The cleaning mail text gets where it enters intake.

describe('mail text cleaning', () => {
  it('removes U+0000 and replaces lone surrogates, keeping pairs', () => {
    expect(cleanText('a\u0000b')).toBe('ab');
    expect(cleanText('x\ud800y\udc00z')).toBe('x\ufffdy\ufffdz');
    expect(cleanText('ok \ud83d\ude00')).toBe('ok \ud83d\ude00');
  });

  it('cleans every string and key of a Graph message, and leaves "__proto__" an ordinary key', () => {
    const message = JSON.parse(
      '{"id":"a\\u0000","from":{"emailAddress":{"name":"Al\\u0000ice"}},"to":["\\ud800"],"k\\u0000":1,"__proto__":{"x":"\\u0000"}}',
    );
    const cleaned = cleanDeep(message);
    expect(cleaned).toEqual(
      JSON.parse('{"id":"a","from":{"emailAddress":{"name":"Alice"}},"to":["\\ufffd"],"k":1,"__proto__":{"x":""}}'),
    );
    expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
    expect(message.id).toBe('a\u0000');
  });

  it('cuts text without leaving half a character', () => {
    expect(cutText('ab\ud83d\ude00', 3)).toBe('ab');
    expect(cutText('ab\ud83d\ude00', 4)).toBe('ab\ud83d\ude00');
    expect(cutTextEnd('\ud83d\ude00ab', 3)).toBe('ab');
  });
});
