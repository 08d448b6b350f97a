// Classification, start to end: normalize → dedupe → provider (with retries) → invariants →
// store. A provider failure is never an HTTP error: the caller gets the fallback result.

import type { Logger } from 'pino';
import type { LlmConfig } from '../shared/config/config.js';
import { ValidationError } from '../shared/errors.js';
import { FALLBACK_CATEGORY, SIGNAL_PROMPT_INJECTION, type Classification, type ClassifyResult } from './categories.js';
import { decideDedupe, fingerprintKeyOf, recordKeyOf } from './dedupe/verdict.js';
import type { DedupeStore } from './dedupe/store/port.js';
import { fingerprintOf } from './dedupe/fingerprint.js';
import { createProviderLimiter, type ProviderSlot } from './provider-limiter.js';
import { takeTurn } from '../shared/process/turns.js';
import { checkAnswer, enforceInvariants, type ModelAnswer } from './llm/answer.js';
import { LlmInvalidAnswer, type FailureKind, type LlmClient } from './llm/client.js';
import { NO_CLASSIFY_OBSERVER, type ClassifyObserver } from './observer.js';
import { traceProviderCall } from './llm/provider-span.js';
import { buildRetryPolicy, withRetry, type Backoff, type RetryPolicy } from './llm/retry.js';
import { NO_TRACING, type Tracing } from '../shared/observability/tracing.js';
import { classifyWithRules } from './rules/classify.js';
import { hasContent, normalizeEmail, type Email, type EmailInput } from '../email/index.js';
import { buildPrompt, emailTriesInjection } from './prompt.js';
import { createLlmClient, hostOf, resolveSettings, type ProviderSettings } from './providers.js';
import type { ClassifyRequest } from './schemas.js';
import { createGuardedFetch } from '../shared/net/guarded-fetch.js';
import { buildAllowList, systemResolver, type HostResolver } from '../shared/net/ssrf.js';
import { dedupeScope, type ClassifyContext } from './dedupe/scope.js';
import { createTokenTally, type ProviderCall, type UsageEvent } from './usage/records.js';

/**
 * What a caller gets: the result (the fallback one when the provider failed) and whether it
 * failed, so no caller has to recognise the fallback by its category.
 */
export interface Classified {
  classification: ClassifyResult;
  failed: boolean;
}

/**
 * Asks the caller's budget for one call (src/auth/classify-budget.ts): throws to refuse (a
 * RateLimitedError); the answer gives the call back when nothing was spent.
 */
export type TakeBudget = () => Promise<{ release(): Promise<void> }>;

export interface ClassifyService {
  /**
   * `context` says who asks, which decides whose stored answers this request may be given.
   * `limitKey` keys the limits on provider calls (provider-limiter.ts): the route passes the
   * token's credential, or the client address when tokens are off. `takeBudget` is asked
   * only when the store holds no answer for this email: a duplicate served from it is free.
   */
  classify(
    request: ClassifyRequest,
    context: ClassifyContext,
    limitKey?: string,
    takeBudget?: TakeBudget,
  ): Promise<Classified>;
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
  /** OUTBOUND_ALLOWED_HOSTS: where a caller's base_url may reach a loopback or private address. */
  outboundAllowedHosts?: readonly string[];
  /** Shorter waits for tests; production uses the defaults. */
  backoff?: Partial<Backoff>;
  now?: () => Date;
  /** Told of each provider call and each duplicate served (the metrics). */
  observer?: ClassifyObserver;
  /** A span around each provider call; none unless given. */
  tracing?: Tracing;
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
  /** What the call cost and how it went: recorded with the answer (see classifyOwned). */
  call: ProviderCall;
}

interface InFlight {
  /** The answer, or null when the classification failed. Never rejects. */
  answer: Promise<Classification | null>;
}

type WaitOutcome =
  | { kind: 'answer'; classification: Classification }
  /** `reclaimed`: this request took the source over; `orphaned`: the source no longer holds this content. */
  | { kind: 'classify'; reclaimed: boolean; orphaned: boolean };

function contentKey(recordKey: string, fingerprint: string): string {
  return `${fingerprint} ${recordKey}`;
}

export function createClassifyService(deps: ClassifyServiceDeps): ClassifyService {
  const now = deps.now ?? (() => new Date());
  const observer = deps.observer ?? NO_CLASSIFY_OBSERVER;
  const policy: RetryPolicy = { ...buildRetryPolicy(deps.llm.timeoutMs, deps.llm.maxRetries), ...deps.backoff };
  // Classifications in flight in this process, by record and content, so a concurrent duplicate
  // awaits instead of polling, and never awaits the answer for content the record no longer has.
  const inFlight = new Map<string, InFlight>();
  let sharedClient: { key: string; client: LlmClient } | null = null;
  // One pool for every caller-chosen host: each socket is checked when it opens, so sharing
  // kept-alive connections between requests shares only connections that passed.
  const allow = buildAllowList(deps.outboundAllowedHosts ?? []);
  const guardedFetch = createGuardedFetch(deps.resolveHost ?? systemResolver, allow);
  const limiter = createProviderLimiter(deps.llm.limits);
  const tracing = deps.tracing ?? NO_TRACING;

  const clientFor = (settings: ProviderSettings): LlmClient => {
    if (settings.caller_credentials) return createLlmClient(settings, guardedFetch);
    const key = `${settings.provider} ${settings.base_url}`;
    if (sharedClient?.key !== key) sharedClient = { key, client: createLlmClient(settings) };
    return sharedClient.client;
  };

  async function runProvider(email: Email, settings: ProviderSettings, fingerprint: string): Promise<Outcome> {
    const started = performance.now();
    const log = { provider: settings.provider, model: settings.model, host: hostOf(settings) };
    const tokens = createTokenTally();
    // The one record of each provider call, whatever its outcome: the usage tables get it with
    // the dedupe write; anything else that observes calls (metrics) can take it from here.
    const callOf = (attempts: number, result: ProviderCall['result']): ProviderCall => ({
      provider: settings.provider,
      model: settings.model,
      input_tokens: tokens.input_tokens,
      output_tokens: tokens.output_tokens,
      latency_ms: Math.round(performance.now() - started),
      attempts,
      result,
    });
    if (settings.provider === 'rules') {
      const call = callOf(1, 'ok');
      observer.providerCall(call);
      return { classification: finish(classifyWithRules(email, now()), email, fingerprint), failed: false, call };
    }
    const client = clientFor(settings);
    const { system, user } = buildPrompt(email);
    const onUsage = tokens.add.bind(tokens);
    const { outcome, record: call } = await traceProviderCall(
      tracing,
      log,
      () =>
        withRetry(async ({ timeout_ms, signal }) => {
          const raw = await client.complete({
            system,
            user,
            model: settings.model,
            temperature: settings.temperature,
            timeout_ms,
            signal,
            onUsage,
          });
          const checked = checkAnswer(raw);
          if (!checked.ok) throw new LlmInvalidAnswer(checked.problems);
          return checked.answer;
        }, policy),
      (done) => callOf(done.attempts, done.ok ? 'ok' : done.failure.kind),
    );
    observer.providerCall(call);
    const ms = call.latency_ms;
    if (outcome.ok) {
      deps.logger.info({ ...log, attempts: outcome.attempts, ms }, 'email classified');
      return { classification: finish(outcome.value, email, fingerprint), failed: false, call };
    }
    const { failure } = outcome;
    deps.logger.warn(
      { ...log, attempts: outcome.attempts, ms, failure: failure.kind, status: failure.status },
      'classification failed',
    );
    return { classification: fallback(failure.kind, outcome.attempts, fingerprint), failed: true, call };
  }

  /**
   * Waits, at most one deadline, for the classification of this content that another request
   * is making under `sourceKey`. When there will be none, this request classifies: `reclaimed`
   * says it took the source record over (a failed or abandoned one) and must answer for it too.
   */
  async function awaitClassification(sourceKey: string, fingerprint: string): Promise<WaitOutcome> {
    const deadline = Date.now() + policy.deadline_ms;
    for (;;) {
      const running = inFlight.get(contentKey(sourceKey, fingerprint));
      if (running) {
        const classification = await within(running.answer, deadline - Date.now());
        if (classification) return { kind: 'answer', classification };
        // It failed (its record is being marked so) or it outlasted our deadline: ask the store.
      }
      const stored = await deps.store.findMessage(sourceKey);
      // Purged, or given other content by an update: there is nothing to wait for.
      if (!stored || stored.fingerprint !== fingerprint) return { kind: 'classify', reclaimed: false, orphaned: true };
      if (stored.state === 'done' && stored.classification)
        return { kind: 'answer', classification: stored.classification };
      // A failure, or a classifier that went away mid-way: whoever reclaims it classifies again.
      const staleBefore = new Date(now().getTime() - policy.deadline_ms).toISOString();
      const abandoned = stored.state === 'failed' || stored.updated_at < staleBefore;
      if (abandoned && (await deps.store.reclaim(sourceKey, fingerprint, staleBefore, now().toISOString()))) {
        return { kind: 'classify', reclaimed: true, orphaned: false };
      }
      if (Date.now() >= deadline) return { kind: 'classify', reclaimed: false, orphaned: false };
      await sleep(WAIT_POLL_MS);
    }
  }

  /**
   * Classifies the email and answers for every record in `recordKeys`, all of this content;
   * `slot` is this request's place in its caller's line for the provider.
   */
  async function classifyOwned(
    recordKeys: readonly string[],
    email: Email,
    settings: ProviderSettings,
    fingerprint: string,
    slot: ProviderSlot | null,
  ): Promise<Outcome> {
    const run = slot
      ? slot.run(() => runProvider(email, settings, fingerprint))
      : runProvider(email, settings, fingerprint);
    // Never rejects: a waiter that gets null looks at the store, and an unawaited rejection would end the process.
    const entry: InFlight = {
      answer: run.then(
        (outcome) => (outcome.failed ? null : outcome.classification),
        () => null,
      ),
    };
    const keys = recordKeys.map((recordKey) => contentKey(recordKey, fingerprint));
    for (const key of keys) inFlight.set(key, entry);
    try {
      const outcome = await run;
      // A failure is not remembered as the answer: the next request for this email tries again.
      const classification = outcome.failed ? null : outcome.classification;
      // The call is recorded once, with the first record's write: same transaction, no round trip.
      let usage: UsageEvent | undefined = { kind: 'call', at: now().toISOString(), call: outcome.call };
      for (const recordKey of recordKeys) {
        await deps.store.saveResult(recordKey, fingerprint, classification, now().toISOString(), usage);
        usage = undefined;
      }
      return outcome;
    } finally {
      // Only our own entry: a request for the same content may have started after ours.
      for (const key of keys) if (inFlight.get(key) === entry) inFlight.delete(key);
    }
  }

  /** Dedupe, then the stored classification or a new one; `slot` is this request's place in its caller's line. */
  async function classifyEmail(
    email: Email,
    settings: ProviderSettings,
    context: ClassifyContext,
    slot: ProviderSlot | null,
  ): Promise<Classified> {
    const fingerprint = fingerprintOf(email);
    const scope = dedupeScope(settings, context);
    const at = now().toISOString();
    // What a duplicate answered from the store counts as: with the claim when it finds the
    // answer in this request's own record, else with this record's write, else alone.
    const served = { kind: 'duplicate', at, provider: settings.provider, model: settings.model } as const;
    const decision = await decideDedupe(deps.store, {
      scope,
      message_key: email.message_key,
      message_id: email.message_id,
      conversation_id: email.conversation_id,
      fingerprint,
      now: at,
      served,
    });

    let classification: Classification | null = null;
    const answerFor = [decision.record_key];
    if (decision.action.kind === 'reuse') {
      const { source_key, stored } = decision.action;
      const waited: WaitOutcome = stored
        ? { kind: 'answer', classification: stored.classification }
        : await awaitClassification(source_key, fingerprint);
      if (waited.kind === 'answer') {
        classification = waited.classification;
        observer.duplicateServed();
        // A claim that found the answer in this request's own record has counted it already.
        if (source_key !== decision.record_key) {
          await deps.store.saveResult(decision.record_key, fingerprint, classification, now().toISOString(), {
            ...served,
            at: now().toISOString(),
          });
        } else if (!stored?.recorded) {
          await deps.store.recordUsage({ ...served, at: now().toISOString() });
        }
      } else if (source_key !== decision.record_key) {
        if (waited.reclaimed) answerFor.push(source_key);
        // The next copy of this content should find this record, which will hold its answer.
        if (waited.orphaned)
          await deps.store.moveFingerprint(
            fingerprintKeyOf({ scope, fingerprint }),
            source_key,
            decision.record_key,
            now().toISOString(),
          );
      }
    }
    // A stored answer is never a failure: failures are not remembered (see classifyOwned).
    let failed = false;
    if (!classification)
      ({ classification, failed } = await classifyOwned(answerFor, email, settings, fingerprint, slot));
    deps.logger.debug(
      { dedupe: decision.verdict.status, matched_on: decision.verdict.matched_on, category: classification.category },
      'classify result',
    );
    return { classification: { ...classification, dedupe: decision.verdict }, failed };
  }

  /**
   * Whether this email's record in the caller's scope already holds its answer, for the same
   * content: a read, no claim, so a request refused after it leaves nothing behind. (The same
   * content under another message id is found only by the claim: that duplicate is charged.)
   */
  async function answerStored(email: Email, settings: ProviderSettings, context: ClassifyContext): Promise<boolean> {
    const fingerprint = fingerprintOf(email);
    const stored = await deps.store.findMessage(
      recordKeyOf({ scope: dedupeScope(settings, context), message_key: email.message_key, fingerprint }),
    );
    return stored?.state === 'done' && stored.fingerprint === fingerprint && stored.classification !== null;
  }

  return {
    async classify(request, context, limitKey = ANONYMOUS_CALLER, takeBudget) {
      // A burst of arrivals is prepared a few per turn of the loop, not all in one go.
      await takeTurn();
      const settings = await resolveSettings(request, {
        llm: deps.llm,
        allow,
        allowOverrides: deps.allowOverrides && context.refuseOverrides !== true,
        resolveHost: deps.resolveHost,
      });
      const email = normalizeEmail(request as EmailInput, deps.maxChars);
      if (!hasContent(email)) throw emptyEmail(request);
      // The store before the budget: a duplicate it serves costs nothing, even once the budget
      // is spent; any other request is counted (or refused) before dedupe claims a record.
      const reservation = takeBudget && !(await answerStored(email, settings, context)) ? await takeBudget() : null;
      // Before dedupe claims a record: a refused request leaves nothing behind, so its retry is
      // judged afresh. A duplicate gives the place back unused (release is a no-op after run).
      let slot: ProviderSlot | null = null;
      try {
        slot = settings.provider === 'rules' ? null : limiter.reserve(limitKey);
        const result = await classifyEmail(email, settings, context, slot);
        // Served from the store after all (it was being classified when we looked): not counted.
        if (result.classification.dedupe.status === 'duplicate') await reservation?.release();
        return result;
      } catch (error) {
        await reservation?.release();
        throw error;
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

/** One error for an email with no text, on the field the caller most likely meant to fill. */
function emptyEmail(request: ClassifyRequest): ValidationError {
  const graphFields = ['subject', 'body', 'uniqueBody', 'bodyPreview'] as const;
  const field =
    request.email_data === undefined && graphFields.some((name) => request[name] != null) ? 'body' : 'email_data';
  return ValidationError.of(
    field,
    'the email has no text: send email_data with a subject or body, or a Graph message with text in subject, body, uniqueBody or bodyPreview',
  );
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

/** The promise's value, or null when it takes longer than `ms`. */
async function within<T>(promise: Promise<T | null>, ms: number): Promise<T | null> {
  if (ms <= 0) return null;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
