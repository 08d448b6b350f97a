// intake's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { registerIntake } from './setup.js';
export type { WorkForIntake } from './work-port.js';
export type { RecognisedReply, RepliesForIntake } from './reply-port.js';
