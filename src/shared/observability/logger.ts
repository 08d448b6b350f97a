import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogFormat, LogLevel } from '../config/config.js';
import { prettyDestination } from './pretty-log.js';

// Anything that could hold a credential is censored wherever it appears in a log object.
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'api_key',
  'apiKey',
  '*.api_key',
  '*.apiKey',
  '*.*.api_key',
  'headers.authorization',
  'headers["x-api-key"]',
];

/** Whether `format` means readable lines here: `auto` on a terminal only. */
export function isPretty(format: LogFormat, stream: { isTTY?: boolean } = process.stdout): boolean {
  return format === 'pretty' || (format === 'auto' && stream.isTTY === true);
}

export function createLogger(level: LogLevel, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? (isPretty(format) ? prettyDestination() : undefined),
  );
}

export type { Logger };
