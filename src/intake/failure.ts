import type { FailureStage } from './schemas.js';

/** A mailbox that cannot be reached, named by the stage that failed, in words a person can act on. */
export class ConnectionFailure extends Error {
  constructor(
    readonly stage: FailureStage,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectionFailure';
  }
}
