import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Desk, startDesk } from './desk-server.js';

// The built UI has a favicon, served by the work service like the page.

let desk: Desk;
beforeAll(async () => {
  desk = await startDesk();
});
afterAll(() => desk?.close());

describe('the favicon', () => {
  it('is linked from the page and served as SVG', async () => {
    const page = await fetch(`${desk.url}/`);
    const html = await page.text();
    const link = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml"/.exec(html);
    expect(link, html).not.toBeNull();
    const icon = await fetch(new URL(link![1]!, `${desk.url}/`));
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toContain('image/svg+xml');
    expect(await icon.text()).toContain('<svg');
  });
});
