import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { COUNT_INCRS, countLabels, moneyFormat, period, steppedData, yRange } from '../../lib/chart-axes.ts';

// A time series chart drawn by uPlot on a canvas, as wide as its container. The numbers it draws
// are also in the figure as text, a caption saying what matters and a table a screen reader can
// walk; the canvas itself is hidden from assistive technology.

export interface ChartSeries {
  label: string;
  /** A CSS colour or custom property (`--s-queued`). */
  color: string;
  values: (number | null)[];
}

export interface TimeChartProps {
  title: string;
  /** One sentence with the headline numbers; it is the figure's caption. */
  summary: string;
  /** Unix seconds. */
  times: number[];
  series: ChartSeries[];
  /** How the table names a point in time. */
  formatTime: (unixSeconds: number) => string;
  height?: number;
  /**
   * What the numbers are: counts get whole-number ticks; money gets currency ticks. Either way
   * an all-zero chart keeps a small axis (0–1), not uPlot's 0–100.
   */
  unit?: { kind: 'count' } | { kind: 'money'; currency: string };
  /**
   * How values join: `steps` holds each value over its period (a count per hour is no ramp
   * from the hour before); `bars` draws one bar per period, series side by side.
   */
  shape?: 'steps' | 'bars';
  /** Only the rows with any non-zero value go in the table (168 empty hours help nobody). */
  skipEmptyRows?: boolean;
  testId?: string;
}

function plotData(times: number[], series: ChartSeries[], shape: 'steps' | 'bars'): uPlot.AlignedData {
  const columns = series.map((s) => s.values);
  return shape === 'steps' ? steppedData(times, columns) : [times, ...columns];
}

function cssColor(color: string, element: Element): string {
  if (!color.startsWith('--')) return color;
  return getComputedStyle(element).getPropertyValue(color).trim() || '#888';
}

export function TimeChart({
  title,
  summary,
  times,
  series,
  formatTime,
  height = 220,
  unit = { kind: 'count' },
  shape = 'steps',
  skipEmptyRows = true,
  testId,
}: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  // A layout effect: the chart goes in before the browser draws the page, so the first frame
  // has it (a plain effect would run after that frame, and cost a second layout and paint).
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const width = Math.max(240, element.clientWidth);
    const chart = new uPlot(
      {
        width,
        height,
        legend: { show: true, live: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          // Bars need half a period of room at each end, or the first and last are cut in two.
          x:
            shape === 'bars'
              ? { time: true, range: (_u, min, max) => [min - period(times) / 2, max + period(times) / 2] }
              : { time: true },
          y: { range: (_u, _min, max) => yRange(max, unit.kind) },
        },
        axes: [
          { stroke: cssColor('--muted', element), grid: { stroke: cssColor('--border', element) } },
          {
            stroke: cssColor('--muted', element),
            grid: { stroke: cssColor('--border', element) },
            // As wide as the longest tick label (US$0.0075 is wider than 48 px), never narrower.
            size: (_u: uPlot, values: string[] | null) =>
              Math.max(48, ...(values ?? []).map((v) => Math.ceil(v.length * 7.5) + 18)),
            ...(unit.kind === 'count'
              ? { incrs: COUNT_INCRS, values: (_u: uPlot, ticks: number[]) => countLabels(ticks) }
              : {
                  values: (u: uPlot, ticks: number[]) => {
                    const format = moneyFormat(unit.currency, u.scales.y?.max ?? 1);
                    return ticks.map(format);
                  },
                }),
          },
        ],
        series: [
          {},
          ...series.map((s, index) => {
            const color = cssColor(s.color, element);
            if (shape === 'bars') {
              // Side by side within the period: each series takes its own slice of the bar slot.
              const size = 0.8 / series.length;
              const align = series.length === 1 ? 0 : index === 0 ? -1 : 1;
              return {
                label: s.label,
                stroke: color,
                fill: color,
                width: 0,
                points: { show: false },
                paths: uPlot.paths.bars!({ size: [size, 40], align: align as -1 | 0 | 1 }),
              };
            }
            return {
              label: s.label,
              stroke: color,
              width: 2,
              points: { show: false },
              paths: uPlot.paths.stepped!({ align: 1 }),
            };
          }),
        ],
      },
      plotData(times, series, shape),
      element,
    );
    plot.current = chart;
    // Follows the container, so the chart fits a phone and a desktop alike.
    const observer = new ResizeObserver(() => {
      const next = Math.max(240, element.clientWidth);
      if (next !== chart.width) chart.setSize({ width: next, height });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
      plot.current = null;
    };
    // The series' labels and colours fix the chart's shape; new numbers go through setData.
  }, [series.map((s) => `${s.label}:${s.color}`).join('|'), height, shape, unit.kind === 'money' ? unit.currency : '']);

  useLayoutEffect(() => {
    plot.current?.setData(plotData(times, series, shape));
  }, [times, series]);

  // The table for screen readers (up to 168 rows a chart) is built once the chart is on screen:
  // it is half of the page's nodes and would otherwise hold up the first paint. Effects run
  // after the browser has drawn, so it follows one frame later.
  const [tableShown, setTableShown] = useState(false);
  useEffect(() => setTableShown(true), []);

  const rows = !tableShown
    ? []
    : times
        .map((time, index) => ({ time, values: series.map((s) => s.values[index] ?? null) }))
        .filter((row) => !skipEmptyRows || row.values.some((value) => value !== null && value !== 0));

  return (
    <figure class="card chart" data-testid={testId}>
      <h2>{title}</h2>
      <div class="chart-canvas" ref={box} aria-hidden="true" />
      <figcaption class="small">{summary}</figcaption>
      {/* A table ignores a 1px width, so the wrapper is what hides it. */}
      {tableShown && (
        <div class="visually-hidden">
          <table class="chart-data">
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                {series.map((s) => (
                  <th scope="col" key={s.label}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.time}>
                  <th scope="row">{formatTime(row.time)}</th>
                  {row.values.map((value, index) => (
                    <td key={series[index]!.label}>{value ?? '–'}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}
