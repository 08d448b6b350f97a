import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

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

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

export type { Logger };
