// Loads the email fixtures under test/fixtures/email (real samples and the ones we wrote).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { normalizeEmail, type Email, type EmailInput } from '../../src/email/normalize.js';

const root = fileURLToPath(new URL('../fixtures/email/', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(`${root}${name}`, 'utf8');
}

export function fixtureJson<T = EmailInput>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}

export function fixtureEmail(name: string, maxChars = 6_000): Email {
  return normalizeEmail(fixtureJson(name), maxChars);
}

/** A ~5 MB HTML email made of real template markup, repeated. */
export function hugeHtml(targetBytes = 5 * 1024 * 1024): string {
  const template = fixtureText('html_04_postmark_trial_expiring.html');
  const body = template.slice(template.indexOf('<table'), template.lastIndexOf('</body>'));
  const parts: string[] = ['<html><head><style>.preheader{display:none}</style></head><body>'];
  let length = parts[0]!.length;
  for (let index = 0; length < targetBytes; index += 1) {
    const part = `<p>Section ${index}</p>${body}`;
    parts.push(part);
    length += part.length;
  }
  parts.push('<p>Final line: please reply by Friday.</p></body></html>');
  return parts.join('');
}
