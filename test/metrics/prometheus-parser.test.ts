import { describe, expect, it } from 'vitest';
import { parsePrometheus } from '../support/prometheus.js';

// The reader the metrics tests rely on must refuse what Prometheus would: a lenient one would
// let a broken exposition pass every other test.

const GOOD = [
  '# HELP a_total Things.',
  '# TYPE a_total counter',
  'a_total{type="x"} 3',
  'a_total{type="quote \\" and \\\\ and \\n"} 1',
  '# TYPE h histogram',
  'h_bucket{le="1",route="/a"} 1',
  'h_bucket{le="+Inf",route="/a"} 2',
  'h_sum{route="/a"} 0.5',
  'h_count{route="/a"} 2',
  '# TYPE g gauge',
  'g Nan',
  '',
].join('\n');

describe('the strict Prometheus text reader', () => {
  it('reads families, labels with escapes, histograms and values', () => {
    const m = parsePrometheus(GOOD);
    expect(m.value('a_total', { type: 'x' })).toBe(3);
    expect(m.value('a_total', { type: 'quote " and \\ and \n' })).toBe(1);
    expect(m.value('h_count', { route: '/a' })).toBe(2);
    expect(m.value('h_bucket', { le: '+Inf', route: '/a' })).toBe(2);
    expect(m.sum('a_total')).toBe(4);
    expect(Number.isNaN(m.value('g'))).toBe(true);
    expect(m.families.get('h')?.type).toBe('histogram');
  });

  it.each([
    ['a sample with no TYPE', 'x 1\n'],
    ['a garbage line', '# TYPE x gauge\nx{ 1\n'],
    ['an unquoted label value', '# TYPE x gauge\nx{a=b} 1\n'],
    ['a bad value', '# TYPE x gauge\nx one\n'],
    ['a series twice', '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n'],
    ['a TYPE twice', '# TYPE x gauge\n# TYPE x counter\n'],
    ['a negative counter', '# TYPE x_total counter\nx_total -1\n'],
    ['buckets that go down', '# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n'],
    ['a +Inf bucket that is not the count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'],
    ['an unknown type', '# TYPE x meter\n'],
  ])('refuses %s', (_why, text) => {
    expect(() => parsePrometheus(text)).toThrow();
  });
});
