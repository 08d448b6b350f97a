import type { ParsedMessage } from './mime.js';

// What intake needs to take a reply to the desk's own mail (a question sent to a person): notify
// recognises one, and the commit hands it to work's port (MailWorkItems.takeReply) instead of
// classifying it. Intake declares this port; the composition root implements it.

/** A mail the desk sent that a message replies to, found by a reply token or a Message-ID. */
export interface RecognisedReply {
  work_item_id: string;
  question_id: string;
  /** The person the desk's mail was sent to: the only one whose reply may answer. */
  person: string;
  /** The address that mail went to: the sender a reply must come from. */
  address: string;
  /** Why it may answer nothing whatever it says (a forged or expired token); null when it may. */
  refused: string | null;
}

export interface RepliesForIntake {
  /** Reads only: the desk's mail this message replies to, or null when it replies to none. */
  recognise(message: ParsedMessage): Promise<RecognisedReply | null>;
}

/** What a reply did: answered its question, or became a comment saying why not; recorded when its item is gone. */
export interface TakenReply {
  action: 'answered' | 'noted' | 'recorded';
  work_item_id: string | null;
}
