import type { LinkTokens } from '../links/tokens.js';
import { replyTokenFrom } from '../links/reply-address.js';
import type { OutboxStatements } from '../outbox/store/port.js';
import type { ReplyMessage } from './decide-reply.js';
import { replyKeys } from './reply-keys.js';

// Which of the desk's mails an incoming message replies to: the notification a signed reply
// token in one of its recipient addresses names, else the one whose Message-ID it replies to or
// references. Reads only; what the reply then does is decideReply's, in intake's commit.

/** The desk's mail a message replies to (intake's RecognisedReply). */
export interface RecognisedNotification {
  work_item_id: string;
  question_id: string;
  person: string;
  address: string;
  /** Why it may answer nothing: a forged or damaged token, or an expired one; null when it may. */
  refused: string | null;
}

export interface ReplyRecognitionDeps {
  outbox: Pick<OutboxStatements, 'findById' | 'findByMessageIds'>;
  tokens: Pick<LinkTokens, 'verifyReply' | 'ttlS'>;
  /** INTAKE_REPLY_ADDRESS; without it only Message-IDs match. */
  replyTemplate: string | null;
  now: () => Date;
}

export function createReplyRecognition({ outbox, tokens, replyTemplate, now }: ReplyRecognitionDeps) {
  return async function recognise(message: ReplyMessage): Promise<RecognisedNotification | null> {
    // Intake keeps the delivery and authentication headers apart from those the classifier reads.
    const keys = replyKeys({
      ...message,
      graph: {
        ...message.graph,
        internetMessageHeaders: [...(message.graph.internetMessageHeaders ?? []), ...message.reply_headers],
      },
    });
    let refused: string | null = null;
    let found;
    for (const address of replyTemplate === null ? [] : keys.recipients) {
      const token = replyTokenFrom(replyTemplate!, address);
      if (token === null) continue;
      const verified = tokens.verifyReply(token);
      if (!verified.ok) {
        refused = `its reply address carries a ${verified.reason === 'forged' ? 'forged' : 'damaged'} token`;
        continue;
      }
      found = await outbox.findById(verified.claims.notification_id);
      if (found) break;
    }
    // A reply whose token was lost (or forged) still names the desk's Message-ID in its thread.
    found ??= (await outbox.findByMessageIds(keys.message_ids.map((id) => `<${id}>`)))[0];
    if (!found || found.question_id === null || found.work_item_id === null) return null;
    if (found && refused === null && Date.parse(found.created_at) + tokens.ttlS * 1000 < now().getTime())
      refused = 'it answers a mail older than the answer links last (ANSWER_LINK_TTL)';
    return {
      work_item_id: found.work_item_id,
      question_id: found.question_id,
      person: found.person,
      address: found.address,
      refused,
    };
  };
}
