import { describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../src/classify/categories.js';
import { checkAnswer, enforceInvariants } from '../../src/classify/llm/answer.js';
import { classifyWithRules } from '../../src/classify/rules/classify.js';
import { organizationOfAddress } from '../../src/classify/rules/extract.js';
import { normalizeEmail } from '../../src/email/normalize.js';
import { fixtureEmail, fixtureText } from './fixtures.js';

describe('rules classifier on clear cases of every category', () => {
  it.each([
    ['written/action_required_budget_approval.json', 'action_required', true, ['direct_request', 'deadline']],
    ['written/meeting_invitation.json', 'meeting', true, ['meeting_invitation']],
    ['written/fyi_office_closed.json', 'fyi', false, ['fyi_wording']],
    ['written/notification_build_failed.json', 'notification', false, ['automated_wording', 'automated_sender']],
    ['written/transactional_order_shipped.json', 'transactional', false, ['order_or_shipping']],
    ['written/newsletter_weekly_digest.json', 'newsletter', false, ['list_unsubscribe_header', 'newsletter_wording']],
    ['written/marketing_summer_sale.json', 'marketing', false, ['promotional_wording', 'unsubscribe_link']],
    ['written/spam_lottery.json', 'spam', false, ['spam_wording', 'reply_to_mismatch']],
    ['graph_03_v1_create_message_mime_resume_submission.json', 'action_required', true, ['direct_request']],
    ['graph_02_v1_message_get_welcome_text_body.json', 'meeting', true, ['meeting_scheduling']],
  ] as const)('%s → %s', (fixture, category, needsAction, signals) => {
    const answer = classifyWithRules(fixtureEmail(fixture));
    expect(answer.category).toBe(category);
    expect(answer.needs_action).toBe(needsAction);
    for (const signal of signals) expect(answer.details.source_signals).toContain(signal);
  });

  it('covers all eight categories with the cases above', () => {
    const covered = new Set(
      [
        'action_required_budget_approval',
        'meeting_invitation',
        'fyi_office_closed',
        'notification_build_failed',
        'transactional_order_shipped',
        'newsletter_weekly_digest',
        'marketing_summer_sale',
        'spam_lottery',
      ].map((name) => classifyWithRules(fixtureEmail(`written/${name}.json`)).category),
    );
    expect([...covered].sort()).toEqual([...CATEGORIES].sort());
  });

  it('treats the real Postmark invoice as transactional with a payment to make', () => {
    const email = normalizeEmail(
      { email_data: { subject: 'Invoice 42', body: fixtureText('html_05_postmark_invoice.html') } },
      6_000,
    );
    const answer = classifyWithRules(email);
    expect(answer).toMatchObject({ category: 'transactional', needs_action: true, priority: 'medium' });
    // A template placeholder names no date: the deadline is found but cannot be placed.
    expect(answer.details.deadline).toBeNull();
    expect(answer.details.suggested_notes).toContain('Deadline: Due By: {{due_date}}');
    expect(answer.details.source_signals).toEqual(expect.arrayContaining(['invoice', 'payment_due']));
    expect(answer.details.organizations).toContain('Company Name LLC');
  });

  it('fills every detail: people, organizations, attachments, deadline, steps, title, notes', () => {
    const answer = classifyWithRules(fixtureEmail('written/action_required_budget_approval.json'));
    // Due "by Friday" (three working days after Tuesday 10 June 2025), but sent with high importance.
    expect(answer.priority).toBe('high');
    expect(answer.task_description).toMatch(/^Reply to Dana Swope: Could you please review and approve/);
    expect(answer.details).toMatchObject({
      deadline: '2025-06-13',
      people: ['Dana Swope', 'Alex Wilber', 'Randi Welch'],
      attachments_referenced: ['q3-budget.xlsx'],
      next_steps: ['Reply to Dana Swope', 'Do it before the deadline: 2025-06-13'],
    });
    expect(answer.details.organizations).toEqual(expect.arrayContaining(['Contoso', 'Contoso Ltd']));
    expect(answer.details.suggested_title!.length).toBeLessThanOrEqual(80);
    expect(answer.details.suggested_notes).toContain('Signals: direct_request');
    expect(answer.details.summary).toContain('Could you please review');
  });

  it('takes the signer of a signature as a person', () => {
    const email = normalizeEmail(
      { email_data: { subject: 'Update', body: 'The report is done.\n\nBest regards,\nMaria Lopez\nFabrikam Inc' } },
      6_000,
    );
    const answer = classifyWithRules(email);
    expect(answer.details.people).toContain('Maria Lopez');
    expect(answer.details.organizations).toContain('Fabrikam Inc');
  });

  it('always produces an answer that passes our own validation and invariants', () => {
    const fixtures = [
      'graph_01_v1_message_get_concert_html.json',
      'graph_04_beta_message_get_mentions.json',
      'graph_05_v1_mailfolder_list_myanalytics_empty_html_body.json',
      'written/injection_visible_simplified.json',
    ];
    for (const fixture of fixtures) {
      const answer = classifyWithRules(fixtureEmail(fixture));
      expect(checkAnswer(answer).ok).toBe(true);
      expect(enforceInvariants(answer, null)).toMatchObject({
        needs_action: answer.needs_action,
        task_description: answer.task_description,
      });
    }
  });

  it('is deterministic and gives low confidence when nothing stands out', () => {
    const email = fixtureEmail('graph_01_v1_message_get_concert_html.json');
    expect(classifyWithRules(email)).toEqual(classifyWithRules(email));
    expect(classifyWithRules(email)).toMatchObject({ category: 'fyi', confidence: 0.3, needs_action: false });
  });

  it('names organizations after their domains, not after free mail', () => {
    expect(organizationOfAddress('adelev@contoso.OnMicrosoft.com')).toBe('Contoso');
    expect(organizationOfAddress('someone@mail.fabrikam.co.uk')).toBe('Fabrikam');
    expect(organizationOfAddress('me@gmail.com')).toBeNull();
  });
});
