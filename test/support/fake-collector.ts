// A real HTTP server on 127.0.0.1 that takes OTLP/HTTP JSON exports (POST /v1/traces), as an
// OpenTelemetry collector would, and keeps every body: the spans, flattened, and the raw text,
// so a test can also look for what must never be sent.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean | null;

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, AttributeValue>;
}

export interface FakeCollector {
  /** http://127.0.0.1:<port>: OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: CollectedSpan[];
  /** Every export body as received. */
  bodies: string[];
  /** Request headers of each export. */
  headers: Record<string, string | string[] | undefined>[];
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value?: Record<string, unknown>;
}

function valueOf(value: Record<string, unknown> | undefined): AttributeValue {
  if (!value) return null;
  if ('stringValue' in value) return value.stringValue as string;
  if ('boolValue' in value) return value.boolValue as boolean;
  // int64 may come as a string in JSON.
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  return JSON.stringify(value);
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));
}

interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpKeyValue[];
        status?: { code?: number };
      }>;
    }>;
  }>;
}

export async function startFakeCollector(): Promise<FakeCollector> {
  const spans: CollectedSpan[] = [];
  const bodies: string[] = [];
  const headers: FakeCollector['headers'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (
        request.method !== 'POST' ||
        request.url !== '/v1/traces' ||
        !request.headers['content-type']?.includes('json')
      ) {
        response.writeHead(415).end();
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      headers.push({ ...request.headers });
      const parsed = JSON.parse(text) as OtlpExport;
      for (const resourceSpans of parsed.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ? span.parentSpanId : null,
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              statusCode: span.status?.code ?? 0,
              resource,
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The span's parent, its parent's parent, … as far as the collected spans go. */
export function ancestorsOf(span: CollectedSpan, spans: readonly CollectedSpan[]): CollectedSpan[] {
  const chain: CollectedSpan[] = [];
  let current: CollectedSpan | undefined = span;
  while (current?.parentSpanId) {
    const parentId: string = current.parentSpanId;
    current = spans.find((candidate) => candidate.spanId === parentId && candidate.traceId === span.traceId);
    if (current) chain.push(current);
  }
  return chain;
}
