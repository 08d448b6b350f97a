import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDedupeStore } from '../../src/classify/dedupe/store/index.js';
import { createClassifyService } from '../../src/classify/service.js';
import { isBlockedAddress } from '../../src/shared/net/ssrf.js';
import { type TestApp, captureLogs } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { startClassifyApp } from '../support/classify-app.js';
import { fixtureJson, fixtureText, hugeHtml } from './fixtures.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { fingerprintOf } from '../../src/classify/dedupe/fingerprint.js';
import { normalizeEmail } from '../../src/email/normalize.js';
import { fingerprintKeyOf, recordKeyOf, threadKeyOf } from '../../src/classify/dedupe/verdict.js';
import { ANONYMOUS, dedupeScope } from '../../src/classify/dedupe/scope.js';

describe.each(await storesUnderTest())('the offline rules provider over HTTP on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // No key anywhere: the provider defaults to rules.
    t = await startClassifyApp(kind, {});
  });
  afterAll(() => t.close());
  const classify = (body: unknown) => call(t.app, 'POST', '/classify', body);

  it.each([
    ['action_required_budget_approval', 'action_required', true],
    ['meeting_invitation', 'meeting', true],
    ['fyi_office_closed', 'fyi', false],
    ['notification_build_failed', 'notification', false],
    ['transactional_order_shipped', 'transactional', false],
    ['newsletter_weekly_digest', 'newsletter', false],
    ['marketing_summer_sale', 'marketing', false],
    ['spam_lottery', 'spam', false],
  ])('%s → %s', async (fixture, category, needsAction) => {
    const response = await classify(fixtureJson(`written/${fixture}.json`));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ category, needs_action: needsAction, dedupe: { status: 'new' } });
    expect(response.body.details.source_signals.length).toBeGreaterThan(0);
    expect(response.body.details.dedupe_key).toBe(response.body.dedupe.fingerprint);
  });

  it.each([
    'html_01_talon_gmail_reply.html',
    'html_02_talon_ms_outlook_2010_reply.html',
    'html_03_talon_hotmail_reply.html',
    'html_04_postmark_trial_expiring.html',
    'html_05_postmark_invoice.html',
    'written/broken_markup.html',
  ])('classifies the HTML email %s sent in the simplified shape', async (fixture) => {
    const response = await classify({
      email_data: { subject: fixture, body: fixtureText(fixture) },
      id: `html-${fixture}`,
    });
    expect(response.status).toBe(200);
    expect(response.body.details.summary).not.toMatch(/<[a-z]/i);
  });

  it.each([
    [
      'a German request',
      'action_required',
      true,
      ['direct_request', 'deadline'],
      'German',
      {
        subject: 'Messprotokolle',
        from: { emailAddress: { name: 'Jörg Weiß', address: 'joerg.weiss@beispiel.example' } },
        body: {
          contentType: 'text',
          content:
            'Hallo,\n\nkönnten Sie mir bitte die Messprotokolle von Halle 2 bis Freitag schicken?\n\nViele Grüße\nJörg Weiß',
        },
      },
    ],
    [
      'Spanish phishing on a look-alike domain',
      'spam',
      false,
      ['credential_request', 'lookalike_domain'],
      'Spanish',
      {
        subject: 'Su cuenta será bloqueada',
        from: { emailAddress: { name: 'Netflix', address: 'avisos@netfliix-cuentas.example' } },
        body: {
          contentType: 'text',
          content:
            'Estimado cliente:\n\nInicie sesión y confirme su contraseña en https://netfliix-cuentas.example/login para evitar el bloqueo de su cuenta.',
        },
      },
    ],
    [
      'a French webinar promotion',
      'marketing',
      false,
      ['event_promotion'],
      'French',
      {
        subject: 'Webinaire gratuit : la paie en 2026',
        from: { emailAddress: { name: 'Paie Facile', address: 'evenements@paiefacile.example' } },
        body: {
          contentType: 'html',
          content:
            '<p>Participez à notre webinaire gratuit jeudi à 11h.</p><p><a href="https://paiefacile.example/i">Inscrivez-vous</a>, les places sont limitées.</p>',
        },
      },
    ],
    [
      'an English welcome announcement',
      'fyi',
      false,
      ['welcome_announcement'],
      'English',
      {
        subject: 'Welcome Lee',
        from: { emailAddress: { name: 'Dana Swope', address: 'danas@contoso.example' } },
        body: {
          contentType: 'text',
          content: 'Hi team,\n\nPlease join me in welcoming Lee Park, who joins the data team today.\n\nDana',
        },
      },
    ],
  ])('classifies %s → %s over HTTP', async (_name, category, needsAction, signals, language, message) => {
    const response = await classify({ id: `multilingual-${category}`, ...message });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ category, needs_action: needsAction, dedupe: { status: 'new' } });
    expect(response.body.details.source_signals).toEqual(expect.arrayContaining(signals));
    expect(response.body.details.suggested_notes).toContain(`by rules-v3, read as ${language}`);
  });

  it('flags the injection attempt', async () => {
    const response = await classify(fixtureJson('written/injection_hidden_instructions.json'));
    expect(response.body.details.source_signals).toContain('possible_prompt_injection');
  });

  it('classifies a 4.5 MB HTML email', async () => {
    const response = await classify({ email_data: { subject: 'huge', body: hugeHtml(4.5 * 1024 * 1024) } });
    expect(response.status).toBe(200);
    expect(response.body.details.source_signals).toContain('subscription_or_trial');
  });
});

describe.each(await storesUnderTest())('dedupe retention on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startClassifyApp(kind, {});
  });
  afterAll(() => t.close());

  it('purges records older than DEDUPE_RETENTION_DAYS; the email is new again afterwards', async () => {
    let clock = new Date('2030-01-01T00:00:00.000Z');
    const service = createClassifyService({
      store: createDedupeStore(t.database),
      llm: loadConfig({}).llm,
      allowOverrides: true,
      maxChars: 6_000,
      retentionDays: 30,
      logger: captureLogs('silent').logger,
      now: () => clock,
    });
    const email = {
      email_data: { subject: 'Retention', body: 'Please keep this.' },
      id: 'retention-1',
      conversationId: 'retention-conv',
    };
    expect((await service.classify(email, ANONYMOUS)).classification.dedupe.status).toBe('new');
    clock = new Date('2030-01-20T00:00:00.000Z');
    expect(await service.purgeExpired()).toBe(0);
    expect((await service.classify(email, ANONYMOUS)).classification.dedupe).toMatchObject({
      status: 'duplicate',
      seen_count: 2,
    });
    clock = new Date('2030-02-25T00:00:00.000Z');
    expect(await service.purgeExpired()).toBe(3);
    expect((await service.classify(email, ANONYMOUS)).classification.dedupe).toMatchObject({
      status: 'new',
      seen_count: 1,
    });
  });
});

describe.each(await storesUnderTest())('abandoned classifications on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startClassifyApp(kind, {});
  });
  afterAll(() => t.close());

  it('a record left pending by a classifier that went away is taken over at once', async () => {
    const clock = new Date('2031-05-01T12:00:00.000Z');
    const store = createDedupeStore(t.database);
    const service = createClassifyService({
      store,
      llm: loadConfig({}).llm,
      allowOverrides: true,
      maxChars: 6_000,
      retentionDays: 30,
      logger: captureLogs('silent').logger,
      now: () => clock,
    });
    const email = { email_data: { subject: 'Stuck', body: 'Could you look at this?' }, id: 'stuck-1' };
    const fingerprint = fingerprintOf(normalizeEmail(email, 6_000));
    const model = loadConfig({}).llm.model;
    const keys = {
      scope: dedupeScope({ provider: 'rules', model, base_url: '' }, ANONYMOUS),
      message_key: 'stuck-1',
      fingerprint,
      conversation_id: null,
    };
    const recordKey = recordKeyOf(keys);
    // Claimed two hours earlier by an instance that crashed before saving its answer.
    const earlier = '2031-05-01T10:00:00.000Z';
    const claimed = await store.claim({
      thread_key: threadKeyOf(keys),
      record_key: recordKey,
      fingerprint,
      fingerprint_key: fingerprintKeyOf(keys),
      conversation_id: null,
      now: earlier,
      served: { kind: 'duplicate', at: earlier, provider: 'rules', model },
    });
    expect(claimed.existing).toBeUndefined();
    const started = Date.now();
    const { classification: result } = await service.classify(email, ANONYMOUS);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ category: 'action_required', dedupe: { status: 'duplicate', matched_on: 'id' } });
    expect((await store.findMessage(recordKey))?.state).toBe('done');
  });
});

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '10.9.8.7',
    '172.20.0.1',
    '192.168.0.1',
    '169.254.169.254',
    '100.100.100.200',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    'not-an-ip',
    '203.0.113.1',
    '192.0.2.1',
    '198.51.100.1',
    '2001:db8::1',
    '2002:a00:1::1',
    '2001::1',
    '100::1',
    '::10.0.0.1',
    '3fff::1',
  ])('blocks %s', (address) => expect(isBlockedAddress(address)).toBe(true));
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:80e::200e', '203.0.114.1'])(
    'allows %s',
    (address) => expect(isBlockedAddress(address)).toBe(false),
  );
});
