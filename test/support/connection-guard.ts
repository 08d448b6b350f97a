// The guard every test database carries (databases.ts): a query on the top-level database from
// inside a transaction's work waits for a second connection while it holds the first, which
// freezes SQLite (one connection) and stalls PostgreSQL's pool. Each one is refused and kept
// here, so test/setup/connection-guard.ts fails the test even when the code swallowed the error.

const violations: Error[] = [];

export function refuseInsideTransaction(insideTransaction: boolean): void {
  if (!insideTransaction) return;
  const error = new Error(
    'a query on the top-level database (another connection) from inside a transaction: run it on the transaction',
  );
  violations.push(error);
  throw error;
}

/** The refusals since the last call, forgotten once taken. */
export function takeViolations(): Error[] {
  return violations.splice(0);
}
