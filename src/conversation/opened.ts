import type { UnitOfWork } from '../shared/db/schema.js';
import type { WorkItemRow, WorkStore } from '../work/index.js';
import type { Question } from './schemas.js';

// A question or a review was written: the port a layer above (notify) fills to write its own
// rows in the same transaction, so what it records commits, or is lost, with the question.

export interface OpenedQuestion {
  /** The open transaction: write on it, and read on it (never on the top-level database). */
  db: UnitOfWork;
  /** The work store on the same transaction (its projects, its items). */
  store: WorkStore;
  question: Question;
  /** The item as the question leaves it. */
  item: WorkItemRow;
}

/** Called inside the transaction; what it returns runs once the transaction has committed. */
export type QuestionOpened = (opened: OpenedQuestion) => Promise<(() => void) | void>;

export const NOTHING_OPENED: QuestionOpened = async () => {};
