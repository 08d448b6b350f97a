import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import { planItem, writePlannedItems } from '../../src/work/items/service.js';
import { createWorkStore } from '../../src/work/store/index.js';
import { type Scrape, parsePrometheus } from '../support/prometheus.js';

// Work item types are free text, so /metrics and /work/stats keep a label (a
// line) only for the METRICS_MAX_TYPES most frequent types and count every other one as
// `other`. 20,000 distinct types must not become 20,000 series: the label sets stay bounded, the
// sums stay right, and the set is the same from one scrape to the next.

const MAX_TYPES = 50;
const RARE = 20_000;
/** hot-00 has the most items, hot-59 the fewest: the first 50 are the ones labelled. */
const HOT = 60;
const hotType = (i: number) => `hot-${String(i).padStart(2, '0')}`;
const hotCount = (i: number) => HOT + 2 - i;
const SLICE = 1_000;
const SUBMITTER = { name: 'loader', role: 'submitter' };

const typeLabels = (m: Scrape, name: string) => new Set(m.samples(name).map((sample) => sample.labels.type));

describe.each(await storesUnderTest())('the type label on %s', (kind) => {
  let t: TestApp;
  let hotTotal = 0;
  beforeAll(async () => {
    t = await startWorkApp(kind);
    await seed();
  }, 180_000);
  afterAll(() => t?.close());

  const scrape = async (): Promise<Scrape> => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
    return parsePrometheus(response.body);
  };

  /** Submits one item of each of `types`, created `at`, as the work service writes a batch: SLICE per statement. */
  async function submitAll(types: string[], at: string): Promise<void> {
    const store = createWorkStore(t.database, DEPENDENT_NOTES);
    for (let i = 0; i < types.length; i += SLICE) {
      const planned = types
        .slice(i, i + SLICE)
        .map((type) => planItem({ type, description: 'one of many types' }, SUBMITTER, at));
      await writePlannedItems(store, planned);
    }
  }

  const claimAndComplete = async (type: string) => {
    const claimed = await call(t.app, 'POST', '/work/claim', { agent: 'ada', types: [type] });
    expect(claimed.status, claimed.text).toBe(200);
    const done = await call(t.app, 'PATCH', `/work/${claimed.body.id}`, {
      agent: 'ada',
      status: 'completed',
      outcome: 'success',
    });
    expect(done.status, done.text).toBe(200);
  };

  async function seed(): Promise<void> {
    // The rare types come first: the first ones seen take the free places, and are counted so.
    await submitAll(
      Array.from({ length: RARE }, (_, i) => `rare-${i}`),
      new Date(Date.now() - 60_000).toISOString(),
    );
    for (const type of ['rare-0', 'rare-1', 'rare-2']) await claimAndComplete(type);
    const hot: string[] = [];
    for (let i = 0; i < HOT; i += 1) for (let n = 0; n < hotCount(i); n += 1) hot.push(hotType(i));
    hotTotal = hot.length;
    await submitAll(hot, new Date().toISOString());
    await claimAndComplete('hot-00');
  }

  it(`${RARE} distinct types: /metrics labels the ${MAX_TYPES} most frequent and counts the rest as other`, async () => {
    const first = await scrape();
    const second = await scrape();
    const labelled = [...Array(MAX_TYPES).keys()].map(hotType);
    for (const m of [first, second]) {
      expect(typeLabels(m, 'agentdesk_work_items')).toEqual(new Set([...labelled, 'other']));
      expect(m.samples('agentdesk_work_items')).toHaveLength((MAX_TYPES + 1) * 7);
      for (let i = 0; i < MAX_TYPES; i += 1) {
        expect(m.sum('agentdesk_work_items', { type: hotType(i) })).toBe(hotCount(i));
      }
      // Every rare type, and the hot types past the bound, are in other.
      const rest = RARE + [...Array(HOT - MAX_TYPES).keys()].reduce((n, i) => n + hotCount(i + MAX_TYPES), 0);
      expect(m.sum('agentdesk_work_items', { type: 'other' })).toBe(rest);
      expect(m.sum('agentdesk_work_items', { status: 'completed', type: 'other' })).toBe(3);
      expect(m.sum('agentdesk_work_items')).toBe(RARE + hotTotal);

      const ages = typeLabels(m, 'agentdesk_work_oldest_queued_age_seconds');
      expect(ages.size).toBe(MAX_TYPES + 1);
      expect(ages.has('other')).toBe(true);
      // The oldest of all queued items is a rare one: other carries it.
      const oldest = Math.max(...m.samples('agentdesk_work_oldest_queued_age_seconds').map((s) => s.value));
      expect(m.value('agentdesk_work_oldest_queued_age_seconds', { type: 'other' })).toBe(oldest);
    }
    // The claims of the rare types taken before the ranking moved to other with them: no series lost a count.
    expect(typeLabels(second, 'agentdesk_work_claims_total')).toEqual(new Set(['hot-00', 'other']));
    expect(second.value('agentdesk_work_claims_total', { type: 'other' })).toBe(3);
    expect(second.value('agentdesk_work_completions_total', { type: 'other' })).toBe(3);
    expect(second.sum('agentdesk_work_claims_total')).toBe(4);
    expect(second.value('agentdesk_work_claims_total', { type: 'hot-00' })).toBe(1);
    // A rare type claimed now is counted in other at once.
    await claimAndComplete('rare-3');
    const third = await scrape();
    expect(third.value('agentdesk_work_claims_total', { type: 'other' })).toBe(4);
    expect(typeLabels(third, 'agentdesk_work_claims_total').size).toBe(2);
  });

  it('GET /work/stats lists the same most frequent types and adds up the rest as other', async () => {
    const response = await call(t.app, 'GET', '/work/stats?days=1');
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body.by_type).toHaveLength(MAX_TYPES + 1);
    expect(body.by_type.slice(0, MAX_TYPES).map((row: any) => row.type)).toEqual(
      [...Array(MAX_TYPES).keys()].map(hotType),
    );
    const other = body.by_type.at(-1);
    expect(other.type).toBe('other');
    expect(body.other_types).toBe(RARE + HOT - MAX_TYPES);
    const listed = body.by_type.slice(0, MAX_TYPES).reduce((n: number, row: any) => n + row.total, 0);
    expect(other.total).toBe(RARE + hotTotal - listed);
    expect(other.by_status.completed).toBe(4);
    expect(body.oldest_queued_by_type.length).toBeLessThanOrEqual(MAX_TYPES + 1);
    expect(body.oldest_queued_by_type[0].type).toBe('other');
    expect(body.oldest_queued_age_s).toBe(body.oldest_queued_by_type[0].age_s);
    expect(response.text.length).toBeLessThan(100_000);
  });
});
