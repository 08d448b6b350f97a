import { readFileSync } from 'node:fs';
import { test } from 'vitest';
import { prepareBody } from '../../src/classify/text.js';
test('scratch', () => {
  const base = readFileSync('test/fixtures/email/html_04_postmark_trial_expiring.html','utf8');
  const body = base.slice(base.indexOf('<body'), base.indexOf('</body>'));
  let html = '<html><body>';
  while (html.length < 5*1024*1024) html += body;
  html += '</body></html>';
  for (let i=0;i<3;i++){ const t=performance.now(); const r = prepareBody(html, 'html', 6000); console.log(html.length, (performance.now()-t).toFixed(1)+'ms', r.full_text.length, r.text.length); }
  let deep = '<div>'.repeat(200000) + 'deep text' + '</div>'.repeat(10);
  let t=performance.now(); const r= prepareBody(deep,'html',6000); console.log('deep', (performance.now()-t).toFixed(1), r.text);
});
