import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

// A time series chart drawn by uPlot on a canvas, as wide as its container (a ResizeObserver
// follows the container, so it fits a phone and a desktop alike). The numbers it draws are also
// in the figure as text: a caption saying what matters and a table a screen reader can walk;
// the canvas itself is hidden from assistive technology.

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
  /** Only the rows with any non-zero value go in the table (168 empty hours help nobody). */
  skipEmptyRows?: boolean;
  testId?: string;
}

function cssColor(color: string, element: Element): string {
  if (!color.startsWith('--')) return color;
  return getComputedStyle(element).getPropertyValue(color).trim() || '#888';
}

export function TimeChart({ title, summary, times, series, formatTime, height = 220, skipEmptyRows = true, testId }: TimeChartProps) {
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
        scales: { x: { time: true } },
        axes: [
          { stroke: cssColor('--muted', element), grid: { stroke: cssColor('--border', element) } },
          { stroke: cssColor('--muted', element), grid: { stroke: cssColor('--border', element) }, size: 48 },
        ],
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: cssColor(s.color, element), width: 2, points: { show: false } })),
        ],
      },
      [times, ...series.map((s) => s.values)],
      element,
    );
    plot.current = chart;
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
  }, [series.map((s) => `${s.label}:${s.color}`).join('|'), height]);

  useLayoutEffect(() => {
    plot.current?.setData([times, ...series.map((s) => s.values)]);
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
