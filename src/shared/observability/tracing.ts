import type { FastifyInstance } from 'fastify';

// The port every traced piece of code talks to. Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and
// off must cost nothing: this file imports no OpenTelemetry package; tracing-otel.ts, which does, is
// imported dynamically only when it is on (start-tracing.ts).

export type SpanValue = string | number | boolean;
export type SpanAttributes = Readonly<Record<string, SpanValue>>;

/** A span in progress, as the code inside it sees it. */
export interface SpanHandle {
  set(attributes: SpanAttributes): void;
  /** Marks the span failed with a short, content-free reason (a failure kind, an error name). */
  fail(reason: string): void;
  /** Ends a span begun with `start`; a span run by `span` ends by itself. */
  end(): void;
}

export interface SpanOptions {
  /**
   * Only as part of a trace already begun (a request, a provider call): work that timers start
   * (the lease sweeper polls twice a second) would otherwise make a trace of its own each time.
   */
  onlyInTrace?: boolean;
}

export interface Tracing {
  readonly enabled: boolean;
  /**
   * Runs `work` inside a span that is the parent of every span begun while it runs, and ends it
   * when `work` settles (failed, if it throws).
   */
  span<T>(
    name: string,
    attributes: SpanAttributes,
    work: (span: SpanHandle) => Promise<T>,
    options?: SpanOptions,
  ): Promise<T>;
  /** Begins a leaf span under the active one, if there is one (else a no-op); the caller ends it. */
  start(name: string, attributes: SpanAttributes): SpanHandle;
  /** The W3C trace context (`traceparent`) of the active span, for a request this one makes. */
  propagationHeaders(): Record<string, string>;
  /** Request spans for `app` (through @fastify/otel); call before any hook or route is added. */
  instrument(app: FastifyInstance): Promise<void>;
  /** Sends the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export const NO_SPAN: SpanHandle = { set: () => undefined, fail: () => undefined, end: () => undefined };

/** Callers either check `enabled` once where they are built and skip wrapping, or call `span`: a plain call here. */
export const NO_TRACING: Tracing = Object.freeze({
  enabled: false,
  span: (_name, _attributes, work) => work(NO_SPAN),
  start: () => NO_SPAN,
  propagationHeaders: () => ({}),
  instrument: async () => undefined,
  shutdown: async () => undefined,
} satisfies Tracing);

export const TRACED_SERVICES = { work: 'work', classify: 'classify' } as const;
export type TracedService = (typeof TRACED_SERVICES)[keyof typeof TRACED_SERVICES];
