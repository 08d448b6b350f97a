// Classification, start to end: normalize → dedupe → provider (with retries) → invariants →
// store. A provider failure is never an HTTP error: the caller gets the fallback result.

import type { Logger } from 'pino';
import type { LlmConfig } from '../shared/config.js';
import { ValidationError } from '../shared/errors.js';
import { FALLBACK_CATEGORY, SIGNAL_PROMPT_INJECTION, type Classification, type ClassifyResult } from './categories.js';
import { decideDedupe, type DedupeDecision } from './dedupe.js';
import type { DedupeStore } from './dedupe-store.js';
import { fingerprintOf } from './fingerprint.js';
import { createProviderLimiter, type ProviderSlot } from './provider-limiter.js';
import { takeTurn } from '../shared/turns.js';
import { checkAnswer, enforceInvariants, type ModelAnswer } from './llm/answer.js';
import { LlmInvalidAnswer, type FailureKind, type LlmClient } from './llm/client.js';
import { buildRetryPolicy, withRetry, type Backoff, type RetryPolicy } from './llm/retry.js';
import { classifyWithRules } from './llm/rules.js';
import { hasContent, normalizeEmail, type Email, type EmailInput } from './normalize.js';
import { buildPrompt, emailTriesInjection } from './prompt.js';
import { createLlmClient, hostOf, resolveSettings, type ProviderSettings } from './providers.js';
import type { ClassifyRequest } from './schemas.js';
import { createGuardedFetch } from './guarded-fetch.js';
import { systemResolver, type HostResolver } from './ssrf.js';

export interface ClassifyService {
  /**
   * `caller` keys the limits on provider calls (provider-limiter.ts): the route passes the
   * client address today, the API token's id once tokens exist.
   */
  classify(request: ClassifyRequest, caller?: string): Promise<ClassifyResult>;
  /** Forgets dedupe records older than the retention period; returns the rows removed. */
  purgeExpired(): Promise<number>;
}

export interface ClassifyServiceDeps {
  store: DedupeStore;
  llm: LlmConfig;
  allowOverrides: boolean;
  maxChars: number;
  retentionDays: number;
  logger: Logger;
  resolveHost?: HostResolver;
  /** Shorter waits for tests; production uses the defaults. */
  backoff?: Partial<Backoff>;
  now?: () => Date;
}

const FAILURE_REASONS = {
  timeout: 'the provider did not answer in time',
  rate_limit: 'the provider kept rate limiting the requests',
  provider_error: 'the provider answered with an error or could not be reached',
  invalid_answer: 'the provider’s answers did not match the required format',
  bad_credentials: 'the provider refused the credentials',
} as const satisfies Record<FailureKind, string>;

/** How often a request waiting for a concurrent classification of the same email looks again. */
const WAIT_POLL_MS = 50;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Callers that name no one (in-process use) share one line. */
const ANONYMOUS_CALLER = 'anonymous';

interface Outcome {
  classification: Classification;
  failed: boolean;
}

export function createClassifyService(deps: ClassifyServiceDeps): ClassifyService {
  const now = deps.now ?? (() => new Date());
  const policy: RetryPolicy = { ...buildRetryPolicy(deps.llm.timeoutMs, deps.llm.maxRetries), ...deps.backoff };
  // Classifications in flight in this process, so a concurrent duplicate awaits instead of polling.
  const inFlight = new Map<string, Promise<Classification | null>>();
  let sharedClient: { key: string; client: LlmClient } | null = null;
  // One pool for every caller-chosen host: each socket is checked when it opens, so sharing
  // kept-alive connections between requests shares only connections that passed.
  const guardedFetch = createGuardedFetch(deps.resolveHost ?? systemResolver);
  const limiter = createProviderLimiter(deps.llm.limits);

  const clientFor = (settings: ProviderSettings): LlmClient => {
    if (settings.caller_credentials) return createLlmClient(settings, guardedFetch);
    const key = `${settings.provider} ${settings.base_url}`;
    if (sharedClient?.key !== key) sharedClient = { key, client: createLlmClient(settings) };
    return sharedClient.client;
  };

  async function runProvider(email: Email, settings: ProviderSettings, fingerprint: string): Promise<Outcome> {
    const started = performance.now();
    const log = { provider: settings.provider, model: settings.model, host: hostOf(settings) };
    if (settings.provider === 'rules') {
      return { classification: finish(classifyWithRules(email), email, fingerprint), failed: false };
    }
    const client = clientFor(settings);
    const { system, user } = buildPrompt(email);
    const outcome = await withRetry(async ({ timeout_ms, signal }) => {
      const raw = await client.complete({ system, user, model: settings.model, temperature: settings.temperature, timeout_ms, signal });
      const checked = checkAnswer(raw);
      if (!checked.ok) throw new LlmInvalidAnswer(checked.problems);
      return checked.answer;
    }, policy);
    const ms = Math.round(performance.now() - started);
    if (outcome.ok) {
      deps.logger.info({ ...log, attempts: outcome.attempts, ms }, 'email classified');
      return { classification: finish(outcome.value, email, fingerprint), failed: false };
    }
    const { failure } = outcome;
    deps.logger.warn({ ...log, attempts: outcome.attempts, ms, failure: failure.kind, status: failure.status }, 'classification failed');
    return { classification: fallback(failure.kind, outcome.attempts, fingerprint), failed: true };
  }

  /** Waits for the classification another request is making; null when there will be none. */
  async function awaitClassification(recordKey: string): Promise<Classification | null> {
    const deadline = Date.now() + policy.deadline_ms;
    for (;;) {
      const pending = inFlight.get(recordKey);
      if (pending) return pending;
      const stored = await deps.store.findMessage(recordKey);
      if (!stored) return null;
      if (stored.state === 'done') return stored.classification;
      // A failure, or a classifier that went away mid-way: whoever reclaims it classifies again.
      const staleBefore = new Date(now().getTime() - policy.deadline_ms).toISOString();
      const abandoned = stored.state === 'failed' || stored.updated_at < staleBefore;
      if (abandoned && (await deps.store.reclaim(recordKey, staleBefore, now().toISOString()))) return null;
      if (Date.now() >= deadline) return null;
      await sleep(WAIT_POLL_MS);
    }
  }

  async function classifyOwned(
    decision: DedupeDecision,
    email: Email,
    settings: ProviderSettings,
    fingerprint: string,
    slot: ProviderSlot | null,
  ): Promise<Classification> {
    const run = slot ? slot.run(() => runProvider(email, settings, fingerprint)) : runProvider(email, settings, fingerprint);
    // Never rejects: a waiter that gets null classifies for itself, and an unawaited rejection would end the process.
    inFlight.set(decision.record_key, run.then((outcome) => (outcome.failed ? null : outcome.classification), () => null));
    try {
      const outcome = await run;
      // A failure is not remembered as the answer: the next request for this email tries again.
      await deps.store.saveResult(decision.record_key, outcome.failed ? null : outcome.classification, now().toISOString());
      return outcome.classification;
    } finally {
      inFlight.delete(decision.record_key);
    }
  }

  /** Dedupe, then the stored classification or a new one; `slot` is this request's place in its caller's line. */
  async function classifyEmail(email: Email, settings: ProviderSettings, slot: ProviderSlot | null): Promise<ClassifyResult> {
    const fingerprint = fingerprintOf(email);
    const decision = await decideDedupe(deps.store, {
      message_key: email.message_key,
      message_id: email.message_id,
      conversation_id: email.conversation_id,
      fingerprint,
      now: now().toISOString(),
    });

    let classification: Classification | null = null;
    if (decision.action.kind === 'reuse') {
      classification = await awaitClassification(decision.action.source_key);
      if (classification && decision.action.source_key !== decision.record_key) {
        await deps.store.saveResult(decision.record_key, classification, now().toISOString());
      }
    }
    classification ??= await classifyOwned(decision, email, settings, fingerprint, slot);
    deps.logger.debug({ dedupe: decision.verdict.status, matched_on: decision.verdict.matched_on, category: classification.category }, 'classify result');
    return { ...classification, dedupe: decision.verdict };
  }

  return {
    async classify(request, caller = ANONYMOUS_CALLER) {
      // A burst of arrivals is prepared a few per turn of the loop, not all in one go.
      await takeTurn();
      const settings = await resolveSettings(request, { llm: deps.llm, allowOverrides: deps.allowOverrides, resolveHost: deps.resolveHost });
      const email = normalizeEmail(request as EmailInput, deps.maxChars);
      if (!hasContent(email)) {
        throw new ValidationError(
          ['email_data', 'subject', 'body', 'uniqueBody', 'bodyPreview'].map((field) => ({
            field,
            message: 'one of email_data or subject, body, uniqueBody, bodyPreview must hold text',
          })),
        );
      }
      // Before dedupe claims a record: a refused request leaves nothing behind, so its retry is
      // judged afresh. A duplicate gives the place back unused (release is a no-op after run).
      const slot = settings.provider === 'rules' ? null : limiter.reserve(caller);
      try {
        return await classifyEmail(email, settings, slot);
      } finally {
        slot?.release();
      }
    },

    async purgeExpired() {
      const cutoff = new Date(now().getTime() - deps.retentionDays * DAY_MS).toISOString();
      return deps.store.purgeBefore(cutoff);
    },
  };
}

/** Invariants, the dedupe key, and our own injection signal whatever the model noticed. */
function finish(answer: ModelAnswer, email: Email, fingerprint: string): Classification {
  const classification = enforceInvariants(answer, fingerprint);
  const signals = classification.details.source_signals;
  if (emailTriesInjection(email) && !signals.includes(SIGNAL_PROMPT_INJECTION)) {
    classification.details.source_signals = [...signals, SIGNAL_PROMPT_INJECTION];
  }
  return classification;
}

export function fallback(kind: FailureKind, attempts: number, fingerprint: string): Classification {
  return {
    needs_action: false,
    category: FALLBACK_CATEGORY,
    priority: 'low',
    task_description: null,
    reasoning: `Classification failed after ${attempts} attempt${attempts === 1 ? '' : 's'} (${kind}): ${FAILURE_REASONS[kind]}.`,
    confidence: 0,
    details: {
      summary: null,
      suggested_title: null,
      suggested_notes: null,
      deadline: null,
      people: [],
      organizations: [],
      attachments_referenced: [],
      next_steps: [],
      key_points: [],
      source_signals: [],
      dedupe_key: fingerprint,
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
