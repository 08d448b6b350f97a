// Mailboxes as the API sees them: what each kind needs, the secret sealed before it reaches the
// store and never shown again, and the connection test. The watcher (supervisor.ts) is told of
// every change through `onChange`, so a new or edited mailbox is picked up at once.

import { randomId } from '../shared/db/ids.js';
import { isForeignKeyViolation } from '../shared/db/database.js';
import { ValidationError, type FieldError } from '../shared/errors.js';
import { UnknownProjectReference } from '../work/index.js';
import type { WorkForIntake } from './work-port.js';
import { MailboxNotFound, NoSecretKey } from './errors.js';
import { type GraphEndpoints, createGraphClient, probeGraph } from './graph/client.js';
import { graphTarget } from './graph/watcher.js';
import { type HostGuard, HostNotAllowed, normalizeHost } from './host-guard.js';
import { type Timeouts, imapTarget, probeImap } from './imap/connection.js';
import {
  type ConnectionTest,
  type CreateMailbox,
  DEFAULT_MESSAGES_PAGE,
  type ImportAccepted,
  type IntakeMessage,
  type Mailbox,
  type MessagesQuery,
  type RoutingRule,
  type UpdateMailbox,
} from './schemas.js';
import type { SecretBox } from '../shared/secret-box.js';
import { openMailboxSecret, secretContext } from './secrets.js';
import type { IntakeStore, MailboxSettings, MessagePosition } from './store/port.js';
import type { AuthKind, IntakeMessageRow, MailboxRow } from './tables.js';
import { splitUpload } from './uploads.js';

export interface MailboxServiceDeps {
  store: IntakeStore;
  work: Pick<WorkForIntake, 'projectExists'>;
  secrets: SecretBox | null;
  timeouts: Timeouts;
  graph: GraphEndpoints;
  /** Where an IMAP host may point (host-guard.ts): checked on create and update, and again on connect. */
  guard: HostGuard;
  /** Called after every committed change to a mailbox (created, edited, deleted, upload queued). */
  onChange: (id: string) => void;
  /** Queues uploaded messages and counts them into the backfill, atomically. */
  queueUpload: (mailboxId: string, messages: Buffer[], at: string) => Promise<void>;
  now?: () => Date;
}

export type MailboxService = ReturnType<typeof createMailboxService>;

const IMAP_ONLY = ['host', 'port', 'tls', 'username', 'password', 'access_token'] as const;
const GRAPH_ONLY = ['tenant_id', 'client_id', 'client_secret', 'address'] as const;
const SECRET_FIELDS = ['password', 'access_token', 'client_secret'] as const;

type Fields = Partial<CreateMailbox>;

/** The secret a body carries, and how it is used; at most one may be sent. */
function secretOf(
  input: Fields,
  errors: FieldError[],
): { field: (typeof SECRET_FIELDS)[number]; value: string; auth: AuthKind } | null {
  const sent = SECRET_FIELDS.filter((field) => input[field] !== undefined);
  if (sent.length > 1) {
    errors.push({ field: sent[1]!, message: `cannot be sent with ${sent[0]}: a mailbox has one secret` });
    return null;
  }
  const field = sent[0];
  if (field === undefined) return null;
  const auth: AuthKind = field === 'password' ? 'password' : field === 'access_token' ? 'xoauth2' : 'client_secret';
  return { field, value: input[field] as string, auth };
}

function requireFields(
  row: Partial<MailboxRow>,
  names: readonly (keyof MailboxRow)[],
  kind: string,
  errors: FieldError[],
): void {
  for (const name of names)
    if (row[name] === null || row[name] === undefined)
      errors.push({ field: name, message: `is required for a ${kind} mailbox` });
}

function refuseFields(input: Fields, names: readonly (keyof Fields)[], kind: string, errors: FieldError[]): void {
  for (const name of names)
    if (input[name] !== undefined) errors.push({ field: name, message: `does not apply to a ${kind} mailbox` });
}

export function createMailboxService(deps: MailboxServiceDeps) {
  const now = deps.now ?? (() => new Date());

  /** The host as it will be stored and connected to, once the guard passed it; undefined when not sent. */
  async function checkHost(host: string | undefined, errors: FieldError[]): Promise<string | undefined> {
    if (host === undefined) return undefined;
    const normalized = normalizeHost(host);
    if (normalized === null) {
      errors.push({ field: 'host', message: 'may hold brackets only around an IPv6 address, as in [2001:db8::25]' });
      return host;
    }
    try {
      await deps.guard.check(normalized);
    } catch (error) {
      if (!(error instanceof HostNotAllowed)) throw error;
      errors.push({ field: 'host', message: error.reason });
    }
    return normalized;
  }

  function seal(id: string, field: string, value: string): string {
    if (!deps.secrets) throw new NoSecretKey(field);
    return deps.secrets.seal(value, secretContext(id));
  }

  /** Rules may name projects; each must exist (the mailbox's own project is a foreign key). */
  async function checkRules(rules: RoutingRule[] | undefined): Promise<void> {
    if (!rules) return;
    const errors: FieldError[] = [];
    for (const [index, rule] of rules.entries()) {
      const projectId = rule.item?.project_id;
      if (projectId && !(await deps.work.projectExists(projectId))) {
        errors.push({ field: `rules.${index}.item.project_id`, message: 'is not the id of an existing project' });
      }
      if (rule.action === 'record' && rule.item !== undefined) {
        errors.push({ field: `rules.${index}.item`, message: 'only applies to the create_item action' });
      }
    }
    if (errors.length > 0) throw new ValidationError(errors);
  }

  /** The kind's required fields on the row as it will be, and nothing of the other kind. */
  function checkKind(row: Partial<MailboxRow>, input: Fields, errors: FieldError[]): void {
    if (row.kind === 'imap') {
      refuseFields(input, GRAPH_ONLY, 'imap', errors);
      requireFields(row, ['host', 'port', 'tls', 'username'], 'imap', errors);
      if (row.secret === null)
        errors.push({ field: 'password', message: 'or access_token is required for an imap mailbox' });
    } else {
      refuseFields(input, IMAP_ONLY, 'graph', errors);
      requireFields(row, ['tenant_id', 'client_id', 'address'], 'graph', errors);
      if (row.secret === null) errors.push({ field: 'client_secret', message: 'is required for a graph mailbox' });
    }
  }

  async function write<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new UnknownProjectReference();
      throw error;
    }
  }

  async function create(input: CreateMailbox): Promise<Mailbox> {
    const errors: FieldError[] = [];
    const secret = secretOf(input, errors);
    const id = randomId();
    const at = now().toISOString();
    const tls = input.kind === 'imap' ? (input.tls ?? 'tls') : null;
    const host = input.kind === 'imap' ? await checkHost(input.host, errors) : input.host;
    const row: MailboxRow = {
      id,
      name: input.name,
      kind: input.kind,
      host: host ?? null,
      port: input.kind === 'imap' ? (input.port ?? (tls === 'tls' ? 993 : 143)) : null,
      tls,
      username: input.username ?? null,
      tenant_id: input.tenant_id ?? null,
      client_id: input.client_id ?? null,
      address: input.address ?? null,
      auth: secret?.auth ?? (input.kind === 'imap' ? 'password' : 'client_secret'),
      secret: null,
      folder: input.folder ?? (input.kind === 'imap' ? 'INBOX' : 'inbox'),
      since: input.since ? new Date(input.since).toISOString() : null,
      project_id: input.project_id ?? null,
      enabled: input.enabled === false ? 0 : 1,
      rules: JSON.stringify(input.rules ?? []),
      state: 'stopped',
      state_changed_at: at,
      last_error: null,
      last_error_at: null,
      last_sync_at: null,
      uid_validity: null,
      last_uid: null,
      delta_link: null,
      seen_count: 0,
      classified_count: 0,
      created_count: 0,
      noted_count: 0,
      failed_count: 0,
      backfill_done: 0,
      backfill_total: 0,
      lease_owner: null,
      lease_expires_at: null,
      created_at: at,
      updated_at: at,
    };
    checkKind({ ...row, secret: secret ? 'sent' : null }, input, errors);
    if (errors.length > 0) throw new ValidationError(errors);
    if (secret) row.secret = seal(id, secret.field, secret.value);
    await checkRules(input.rules);
    await write(() => deps.store.insertMailbox(row));
    deps.onChange(id);
    return toMailbox(row);
  }

  async function find(id: string): Promise<MailboxRow> {
    const row = await deps.store.findMailbox(id);
    if (!row) throw new MailboxNotFound(id);
    return row;
  }

  async function update(id: string, patch: UpdateMailbox): Promise<Mailbox> {
    const current = await find(id);
    const errors: FieldError[] = [];
    const secret = secretOf(patch, errors);
    const changes: Partial<MailboxSettings> = {};
    const copy = [
      'name',
      'host',
      'port',
      'tls',
      'username',
      'tenant_id',
      'client_id',
      'address',
      'folder',
      'project_id',
    ] as const;
    for (const field of copy) if (patch[field] !== undefined) Object.assign(changes, { [field]: patch[field] });
    if (patch.since !== undefined) changes.since = patch.since === null ? null : new Date(patch.since).toISOString();
    if (patch.enabled !== undefined) changes.enabled = patch.enabled ? 1 : 0;
    if (patch.rules !== undefined) changes.rules = JSON.stringify(patch.rules);
    if (secret) changes.auth = secret.auth;
    if (current.kind === 'imap' && patch.host !== undefined) changes.host = await checkHost(patch.host, errors);
    checkKind(
      { ...current, ...changes, secret: secret ? 'sent' : current.secret },
      { ...patch, kind: current.kind } as Fields,
      errors,
    );
    if (errors.length > 0) throw new ValidationError(errors);
    if (secret) changes.secret = seal(id, secret.field, secret.value);
    await checkRules(patch.rules);
    const moved = ['host', 'port', 'username', 'folder', 'tenant_id', 'address'].some(
      (field) => field in changes && changes[field as keyof MailboxSettings] !== current[field as keyof MailboxRow],
    );
    const at = now().toISOString();
    // Another account or folder: what the old cursor counted means nothing there.
    const cursor = moved ? { uid_validity: null, last_uid: null, delta_link: null } : {};
    const updated = await write(() =>
      deps.store.updateMailbox(id, { ...changes, ...cursor } as Partial<MailboxSettings>, at),
    );
    if (!updated) throw new MailboxNotFound(id);
    deps.onChange(id);
    return get(id);
  }

  async function get(id: string): Promise<Mailbox> {
    return toMailbox(await find(id));
  }

  async function list(): Promise<Mailbox[]> {
    return (await deps.store.listMailboxes()).map(toMailbox);
  }

  async function remove(id: string): Promise<void> {
    if (!(await deps.store.deleteMailbox(id))) throw new MailboxNotFound(id);
    deps.onChange(id);
  }

  async function test(id: string): Promise<ConnectionTest> {
    const row = await find(id);
    let secret: string;
    try {
      secret = openMailboxSecret(deps.secrets, row);
    } catch (error) {
      return { ok: false, stage: 'secret', message: (error as Error).message, ms: 0, folder: null };
    }
    if (row.kind === 'imap') return probeImap(imapTarget(row), secret, deps.guard, deps.timeouts);
    return probeGraph(createGraphClient(graphTarget(row), secret, deps.graph));
  }

  /** The intake log, newest first; `next_cursor` continues it. */
  async function messages(
    id: string,
    query: MessagesQuery,
  ): Promise<{ items: IntakeMessage[]; next_cursor: string | null }> {
    await find(id);
    const limit = query.limit ?? DEFAULT_MESSAGES_PAGE;
    const after = query.cursor === undefined ? null : decodePosition(query.cursor);
    const filter = { ...(query.status && { status: query.status }), ...(query.action && { action: query.action }) };
    const rows = await deps.store.listMessages(id, filter, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(toIntakeMessage), next_cursor: rows.length > limit && last ? encodePosition(last) : null };
  }

  /** Splits an .eml or mbox upload and queues its messages for the mailbox's watcher. */
  async function importUpload(id: string, body: Buffer, contentType: string): Promise<ImportAccepted> {
    await find(id);
    const split = splitUpload(body, contentType);
    await deps.queueUpload(id, split, now().toISOString());
    deps.onChange(id);
    const row = await find(id);
    return { queued: split.length, backfill: { done: row.backfill_done, total: row.backfill_total } };
  }

  return { create, get, list, update, remove, test, messages, importUpload };
}

function encodePosition(row: Pick<IntakeMessageRow, 'created_at' | 'id'>): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id])).toString('base64url');
}

function decodePosition(cursor: string): MessagePosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(createdAt)))
      return { created_at: createdAt, id };
  } catch {
    // answered below
  }
  throw ValidationError.of('cursor', 'is not a cursor this listing gave out');
}

export function toIntakeMessage(row: IntakeMessageRow): IntakeMessage {
  return {
    id: row.id,
    mailbox_id: row.mailbox_id,
    source: row.source,
    source_ref: row.source_ref,
    message_id: row.message_key,
    conversation_id: row.conversation_key,
    sender: row.sender,
    subject: row.subject,
    received_at: row.received_at,
    status: row.status,
    action: row.action,
    category: row.category,
    needs_action: row.needs_action === null ? null : row.needs_action === 1,
    priority: row.priority,
    dedupe_status: row.dedupe_status,
    work_item_id: row.work_item_id,
    work_item_url: row.work_item_id ? `/work/${row.work_item_id}` : null,
    rule_index: row.rule_index,
    error: row.error,
    created_at: row.created_at,
  };
}

export function toMailbox(row: MailboxRow): Mailbox {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    host: row.host,
    port: row.port,
    tls: row.tls,
    username: row.username,
    tenant_id: row.tenant_id,
    client_id: row.client_id,
    address: row.address,
    auth: row.auth,
    has_secret: row.secret !== null,
    folder: row.folder,
    since: row.since,
    project_id: row.project_id,
    enabled: row.enabled === 1,
    rules: JSON.parse(row.rules) as RoutingRule[],
    state: row.state,
    state_changed_at: row.state_changed_at,
    last_error: row.last_error,
    last_error_at: row.last_error_at,
    last_sync_at: row.last_sync_at,
    counts: {
      seen: row.seen_count,
      classified: row.classified_count,
      items_created: row.created_count,
      notes_added: row.noted_count,
      failed: row.failed_count,
    },
    backfill: { done: row.backfill_done, total: row.backfill_total },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
