import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeEmail, type EmailInput } from '../../src/email/normalize.js';
import { buildPrompt } from '../../src/classify/prompt.js';
import { prepareBody } from '../../src/email/body-text.js';

// The classify benchmark's in-process figures: how long a 5 MB HTML email takes to become
// model text, and how large the prompt is for each fixture. Pure CPU work, so they run in the
// orchestrator once the servers are gone.

const FIXTURES = join(process.cwd(), 'test', 'fixtures', 'email');
const MAX_CHARS = 6_000;
const RUNS = 7;

/** A real templated email (Postmark's) repeated to 5 MB, so the markup is what mail clients send. */
export function hugeHtml(): string {
  const template = readFileSync(join(FIXTURES, 'html_04_postmark_trial_expiring.html'), 'utf8');
  const section = template.slice(template.indexOf('<table'), template.lastIndexOf('</body>'));
  const parts = ['<html><body>'];
  let length = parts[0]!.length;
  for (let index = 0; length < 5 * 1024 * 1024; index += 1) {
    const part = `<p>Section ${index}</p>${section}`;
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}

export function measurePrepareHugeHtml(): { bytes: number; median_ms: number; max_ms: number } {
  const html = hugeHtml();
  const timings: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    prepareBody(html, 'html', MAX_CHARS);
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  return { bytes: html.length, median_ms: Math.round(timings[RUNS >> 1]!), max_ms: Math.round(timings[RUNS - 1]!) };
}

export function promptSizes(): Array<{ fixture: string; system_chars: number; user_chars: number }> {
  const files = [...readdirSync(FIXTURES), ...readdirSync(join(FIXTURES, 'written')).map((name) => `written/${name}`)];
  return files
    .filter((name) => /\.(json|html)$/.test(name))
    .sort()
    .map((file) => {
      const text = readFileSync(join(FIXTURES, file), 'utf8');
      const input = (
        file.endsWith('.json') ? JSON.parse(text) : { email_data: { subject: file, body: text } }
      ) as EmailInput;
      const prompt = buildPrompt(normalizeEmail(input, MAX_CHARS));
      return { fixture: file, system_chars: prompt.system.length, user_chars: prompt.user.length };
    });
}
