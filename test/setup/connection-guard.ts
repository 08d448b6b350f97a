import { afterAll, afterEach } from 'vitest';
import { takeViolations } from '../support/connection-guard.js';

// Fails the test (or the file, for what its hooks did) in which the code asked for another
// connection inside a transaction, whether or not the refusal reached the test.

function failOnViolations(): void {
  const found = takeViolations();
  if (found.length === 0) return;
  throw new Error(
    `${found.length} quer${found.length === 1 ? 'y' : 'ies'} on the top-level database inside a transaction; the first:\n${found[0]!.stack}`,
  );
}

afterEach(failOnViolations);
afterAll(failOnViolations);
