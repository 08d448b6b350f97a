import { describe, expect, it } from 'vitest';
import { composeQuestionMail, sourceThread } from '../../src/notify/outbox/compose.js';
import type { Question } from '../../src/conversation/contract.js';
import type { WorkItemRow } from '../../src/work/index.js';
import { TEST_TOKENS } from './outbox-support.js';

// The mail of a question without a server: the thread intake recorded, and what is left out
// when the desk has no public address, no reply address or no signer.

const question = {
  id: '11111111-1111-4111-8111-111111111111',
  kind: 'question',
  asked_by: 'ada',
  question: 'Which "region"?\nEU or US',
  options: null,
} as Question;
const item = {
  id: '22222222-2222-4222-8222-222222222222',
  type: 'deploy',
  description: 'Deploy & verify',
  priority: 5,
  project_id: null,
  payload: null,
} as WorkItemRow;
const mail = {
  fromDomain: 'example.org',
  publicUrl: 'https://desk.example.org',
  replyAddress: 'd+{token}@example.org',
};

describe('composeQuestionMail', () => {
  it('threads on the messages intake kept, in order, skipping the hashes it names id-less mail by', () => {
    const payload = JSON.stringify({
      email: { message_id: '<b@x.org>', in_reply_to: '<a@x.org>' },
      thread: [{ message_id: 'sha256:abc' }, { message_id: '<c@x.org>' }, { message_id: '<b@x.org>' }],
    });
    expect(sourceThread(payload)).toEqual(['<a@x.org>', '<b@x.org>', '<c@x.org>']);
    expect(sourceThread('not json')).toEqual([]);
    const composed = composeQuestionMail({
      notificationId: 'n1',
      question,
      item: { ...item, payload },
      project: null,
      person: 'mia',
      mail,
      tokens: TEST_TOKENS,
    });
    expect(composed.headers).toEqual({
      'Reply-To': 'd+r.n1@example.org',
      'In-Reply-To': '<c@x.org>',
      References: '<a@x.org> <b@x.org> <c@x.org>',
    });
    expect(composed.subject).toBe('[agentdesk] ada asks: Which "region"? EU or US');
    expect(composed.html_body).toContain('Which &quot;region&quot;?');
    expect(composed.text_body).toContain(`Answer on the desk: https://desk.example.org/answer/ans.${question.id}.mia`);
  });

  it('without PUBLIC_URL, a reply address or a signer: no links and no Reply-To, the question still whole', () => {
    const composed = composeQuestionMail({
      notificationId: 'n2',
      question: { ...question, options: ['EU', 'US'] },
      item,
      project: 'ops',
      person: 'mia',
      mail: { fromDomain: 'example.org', publicUrl: null, replyAddress: null },
      tokens: null,
    });
    expect(composed.message_id).toBe(`<q.${question.id}.n2@example.org>`);
    expect(composed.headers).toEqual({});
    expect(composed.text_body).not.toContain('http');
    expect(composed.html_body).not.toContain('href');
    expect(composed.text_body).toContain('1. EU');
    expect(composed.text_body).toContain('Project: ops');
  });

  it('cuts a long question in the subject and keeps it whole in the body', () => {
    const long = 'word '.repeat(60).trim();
    const composed = composeQuestionMail({
      notificationId: 'n3',
      question: { ...question, question: long },
      item,
      project: null,
      person: 'mia',
      mail,
      tokens: TEST_TOKENS,
    });
    expect(composed.subject.length).toBeLessThanOrEqual('[agentdesk] ada asks: '.length + 80);
    expect(composed.subject.endsWith('…')).toBe(true);
    expect(composed.text_body).toContain(long);
  });
});
