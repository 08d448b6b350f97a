// notify's entry: what the layers above and the composition root may import of it.

export {
  decideReply,
  ownText,
  type RepliedQuestion,
  type ReplyMessage,
  type ReplyVerdict,
} from './replies/decide-reply.js';
export { readAnswer, readReview, type ReplyAnswer, type ReviewDecision } from './replies/answers.js';
export {
  normalizeAddress,
  normalizeMessageId,
  replyKeys,
  sameAddress,
  senderVerdict,
  SENDER_VERDICTS,
  type ReplyEnvelope,
  type ReplyKeys,
  type SenderVerdict,
} from './replies/reply-keys.js';
export { replyText } from './replies/reply-text.js';
