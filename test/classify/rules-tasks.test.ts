import { describe, expect, it } from 'vitest';
import { loadLabelledSet, type LabelledEmail } from '../support/rules-labelled.js';
import { normalizeEmail } from '../../src/email/normalize.js';
import { classifyWithRules } from '../../src/classify/rules/classify.js';

// The work items the offline classifier writes, on the task-labelled emails of the
// labelled set (test/fixtures/rules-labelled/tasks-*.json, written for this in four languages).
// Category, priority and deadline must match the labels exactly; the description is checked for
// the properties a person expects of a task, not for one exact wording.

const labelled = loadLabelledSet().filter(
  (email): email is LabelledEmail & { expected: NonNullable<LabelledEmail['expected']> } => email.expected !== null,
);

const REPLY_FORM = /^(?:Reply to [^:]+: |Antworten an [^:]+: |Responder a [^:]+: |Répondre à [^:]+ : )/u;
const GREETING =
  /^(?:hi|hello|hey|dear|good morning|hallo|liebe[rs]?|sehr geehrte[rs]?|guten tag|hola|estimad[oa]|buenos días|bonjour|salut|madame|monsieur)(?![\p{L}])/iu;
const DATE_WORD =
  /^(?:jan(?:uary)?|feb(?:ruary)?|march|april|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|januar|februar|märz|mai|juni|juli|oktober|dezember|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre)\.?$/iu;

function answerFor(email: LabelledEmail) {
  // Each labelled email carries its sent date; the clock passed here must not matter.
  return classifyWithRules(normalizeEmail(email.input, 6_000), new Date('2000-01-01T00:00:00Z'));
}

function bodyOf(email: LabelledEmail): string {
  const input = email.input as { body?: { content?: string } };
  return (input.body?.content ?? '').replace(/\s+/g, ' ');
}

describe('the rules classifier writes tasks a person would write', () => {
  it('is measured on 40 or more task-labelled emails in each of the four languages', () => {
    expect(labelled.length).toBeGreaterThanOrEqual(40);
    for (const language of ['en', 'de', 'es', 'fr'])
      expect(labelled.filter((email) => email.language === language).length).toBeGreaterThanOrEqual(10);
  });

  it.each(labelled.map((email) => [email.id, email] as const))(
    '%s: category, priority and deadline as labelled',
    (_id, email) => {
      const answer = answerFor(email);
      expect({ category: answer.category, priority: answer.priority, deadline: answer.details.deadline }).toEqual({
        category: email.category,
        priority: email.expected.priority,
        deadline: email.expected.deadline,
      });
      expect(answer.task_description === null).toBe(email.expected.task === null);
    },
  );

  it.each(labelled.filter((email) => email.expected.task !== null).map((email) => [email.id, email] as const))(
    '%s: the description is a clean task',
    (_id, email) => {
      const task = answerFor(email).task_description!;
      const verb = email.expected.verb!;
      expect(task.length).toBeLessThanOrEqual(120);
      const request = task.replace(REPLY_FORM, '');
      // "<Verb> …" or "Reply to <sender>: …", in the email's language.
      expect(REPLY_FORM.test(task) || request.toLowerCase().startsWith(verb.toLowerCase()), task).toBe(true);
      expect(request, task).not.toMatch(GREETING);
      expect(/^[¿¡«"]?\p{Lu}/u.test(request), task).toBe(true);
      expect(task.toLowerCase()).toContain(verb.toLowerCase());
      if (task.includes('…')) {
        // Cut at a word edge of the original text, and not between a number and the rest of its date.
        const head = request.split('…')[0]!.trimEnd();
        const lastWords = head.split(' ').slice(-3).join(' ');
        const body = bodyOf(email);
        const at = body.indexOf(lastWords);
        expect(at, `"${lastWords}" is not in the body`).toBeGreaterThanOrEqual(0);
        const after = body.slice(at + lastWords.length);
        expect(after, task).toMatch(/^(?:[^\p{L}\p{N}]|$)/u);
        const last = head.split(' ').at(-1)!;
        const next = after.replace(/^[\s,]+/u, '').split(' ')[0] ?? '';
        const cutInsideDate =
          /^\d{1,2}\.$/.test(last) || // a German ordinal without its noun: "den 2." | "Bauabschnitt"
          (/\d$/.test(last) && (DATE_WORD.test(next) || /^\d/.test(next))) || // "27" | "November", "2" | "500"
          (DATE_WORD.test(last) && /^\d/.test(next)); // "Dec." | "3"
        expect(cutInsideDate, task).toBe(false);
      }
    },
  );

  it("answers the issue's own example: an approval asked for today is urgent work, not a receipt", () => {
    const answer = classifyWithRules(
      normalizeEmail(
        {
          subject: 'Invoice 7731',
          body: {
            contentType: 'text',
            content: 'Hi Sam,\n\nPlease approve invoice 7731 for $1,200 today.\n\nThanks,\nRiley',
          },
          from: { emailAddress: { name: 'Riley Park', address: 'riley.park@contoso.com' } },
          sentDateTime: '2026-11-26T09:00:00Z',
        },
        6_000,
      ),
    );
    expect(answer).toMatchObject({
      category: 'action_required',
      priority: 'high',
      task_description: 'Approve invoice 7731 for $1,200 today',
    });
    expect(answer.details.deadline).toBe('2026-11-26');
    expect(answer.details.source_signals).toEqual(expect.arrayContaining(['approval_request', 'deadline']));
  });

  it('keeps a receipt transactional, with nothing to do', () => {
    const answer = classifyWithRules(
      normalizeEmail(
        {
          subject: 'Your payment was received',
          body: {
            contentType: 'text',
            content:
              'Hello,\n\nYour payment was received. Thank you for your payment of $1,200 for invoice 7731.\n\nAccounts',
          },
          from: { emailAddress: { name: 'Contoso Billing', address: 'billing@contoso.com' } },
          sentDateTime: '2026-11-26T09:00:00Z',
        },
        6_000,
      ),
    );
    expect(answer).toMatchObject({
      category: 'transactional',
      needs_action: false,
      priority: 'low',
      task_description: null,
    });
  });
});
