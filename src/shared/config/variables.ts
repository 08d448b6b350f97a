// Every environment variable src/shared/config/config.ts reads, described for people: the table of
// docs/configuration.md is generated from this list (`npm run docs:config`), and
// test/shared/config-doc.test.ts fails when config.ts reads or names a variable missing here.

/** Where a variable is shown in docs/configuration.md: one table per subject, in this order. */
export const CONFIG_GROUPS = {
  server: 'Server and logs',
  database: 'Database',
  auth: 'Identity and access',
  outbound: 'Outbound connections',
  llm: 'Language model',
  classify: 'Classification',
  intake: 'Mail intake',
  mail: 'Mail out',
  notify: 'Answer links',
  webhooks: 'Webhooks',
  a2a: 'A2A agent',
  tracing: 'Tracing',
} as const;

export interface ConfigVariable {
  name: string;
  group: keyof typeof CONFIG_GROUPS;
  /** The default as a user reads it (Markdown); the parsing below is the authority. */
  default: string;
  /** One line for the table (Markdown); the subject's docs page says the rest. */
  meaning: string;
}

/**
 * Every environment variable loadConfig reads, for people. docs/configuration.md's table is
 * written from this list (`npm run docs:config`), and test/shared/config-doc.test.ts fails when
 * loadConfig reads a variable missing here, or when the page and this list disagree: a variable
 * added below without an entry here fails the suite.
 */
export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  {
    name: 'HOST',
    group: 'server',
    default: '`127.0.0.1`',
    meaning: 'Interface both services listen on; a non-loopback address turns `AUTH=tokens` on by default',
  },
  { name: 'WORK_PORT', group: 'server', default: '`8080`', meaning: 'Work-item service: API, web UI, events, `/mcp`' },
  { name: 'CLASSIFY_PORT', group: 'server', default: '`8081`', meaning: 'Classification service' },
  {
    name: 'CLASSIFY_URL',
    group: 'server',
    default: '`http://<HOST>:<CLASSIFY_PORT>` (`127.0.0.1` for a wildcard `HOST`)',
    meaning: "Where the work service (its UI's Classify page) reaches the classifier",
  },
  {
    name: 'REQUEST_TIMEOUT_MS',
    group: 'server',
    default: '`60000`',
    meaning:
      "A request's body must arrive within this of its headers (`408` and the connection closed otherwise); the answer may take longer (events, long polls) (100–3600000)",
  },
  {
    name: 'REQUEST_TIMEOUT_UNAUTHENTICATED_MS',
    group: 'server',
    default: '`10000`',
    meaning:
      "The same bound for a caller no credential identified (sign-in, public routes), and the bound on every request's headers; at most `REQUEST_TIMEOUT_MS`",
  },
  {
    name: 'BODY_IDLE_TIMEOUT_MS',
    group: 'server',
    default: '`15000`',
    meaning: 'The longest pause inside a request body (`408` otherwise) (100–3600000)',
  },
  {
    name: 'BODY_IDLE_TIMEOUT_UNAUTHENTICATED_MS',
    group: 'server',
    default: '`5000`',
    meaning: 'The same for a caller no credential identified; at most `BODY_IDLE_TIMEOUT_MS`',
  },
  {
    name: 'MAX_CONNECTIONS_PER_ADDRESS',
    group: 'server',
    default: '`256`',
    meaning:
      'Open connections one client address may hold, per service; more are closed at once; `0`: no cap (raise it behind a proxy, which is one address)',
  },
  {
    name: 'LOG_LEVEL',
    group: 'server',
    default: '`info`',
    meaning:
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; one line per request (`/health` checks at `debug`); `debug` adds event-loop lag and RSS once a second',
  },
  {
    name: 'LOG_FORMAT',
    group: 'server',
    default: '`auto`',
    meaning:
      '`json`: pino JSON lines; `pretty`: readable lines and a start-up banner (URLs, store, auth mode); `auto`: `pretty` when standard output is a terminal, else `json`',
  },
  {
    name: 'METRICS_MAX_TYPES',
    group: 'server',
    default: '`50`',
    meaning:
      'Work item types with a `type` label of their own in `/metrics` and a line in `/work/stats` (the most frequent); the rest are `other` (1–10000)',
  },
  {
    name: 'EVENTS_RETENTION_DAYS',
    group: 'server',
    default: '`30`',
    meaning:
      'How long the event log keeps events for clients resuming `GET /events` (1–36500); one resuming from before that gets `reset`. Events the webhooks have not sent yet are kept',
  },
  {
    name: 'RETENTION_DAYS',
    group: 'server',
    default: 'unset (keep every item)',
    meaning:
      'Final items (completed, failed, cancelled) whose last change is older than this many days (1–36500) are archived to `ARCHIVE_DIR` and removed with their history, comments and questions; items others depend on, parents and children of open work stay (docs/operations.md)',
  },
  {
    name: 'ARCHIVE_DIR',
    group: 'server',
    default: 'unset',
    meaning:
      'Where removed items are kept: one gzip file of JSON lines per day (`items-YYYY-MM-DD.jsonl.gz`), written and fsynced before the rows go. Required with `RETENTION_DAYS`',
  },
  {
    name: 'QUESTION_WAITS_PER_CALLER',
    group: 'server',
    default: '`100`',
    meaning:
      'Answers one caller (a token; an address with `AUTH=off`) may wait for at once with `wait_s`; one more is a `429` (1–100000)',
  },
  {
    name: 'DATABASE_URL',
    group: 'database',
    default: '`sqlite:./data/agentdesk.db`',
    meaning: '`sqlite:<path>` (folder created), `sqlite::memory:`, or `postgres://…` / `postgresql://…`',
  },
  {
    name: 'DATABASE_POOL_SIZE',
    group: 'database',
    default: '`10`',
    meaning: 'PostgreSQL connections per process (1–1000); `npm start` runs two processes',
  },
  {
    name: 'DATABASE_STATEMENT_TIMEOUT_MS',
    group: 'database',
    default: '`5000`',
    meaning: 'Statement timeout on PostgreSQL, busy timeout on SQLite',
  },
  {
    name: 'SQLITE_WAL_MAX_MB',
    group: 'database',
    default: '`256`',
    meaning:
      "SQLite: the write-ahead log's size in MiB past which writers pause (at most 2 s) for a checkpoint that starts the log over; the file is cut back to this size then. `0`: no bound (the log can grow without end under writes that never pause). See operations",
  },
  {
    name: 'TEST_SQLITE_CHECKPOINTER_EXIT_AFTER',
    group: 'database',
    default: 'unset',
    meaning:
      'Fault injection, for the checkpointer-death test only: the first SQLite checkpointer thread exits after this many checkpoints (1 and up); never set it in production',
  },
  {
    name: 'AUTH',
    group: 'auth',
    default: '`off` on a loopback `HOST`, else `tokens`',
    meaning:
      "`tokens`: every route but `/health`, `/openapi.json`, `/docs`, the UI's files and the answer links needs a credential; `off`: an open desk for one developer",
  },
  {
    name: 'AUTH_OFF_I_UNDERSTAND_THE_RISK',
    group: 'auth',
    default: '`false`',
    meaning: 'Needed to run `AUTH=off` on a non-loopback `HOST`',
  },
  {
    name: 'AGENTDESK_ADMIN_TOKEN',
    group: 'auth',
    default: 'none',
    meaning: 'A secret of at least 32 characters accepted as an admin token named `admin` (bootstrap)',
  },
  {
    name: 'ALLOWED_HOSTS',
    group: 'auth',
    default: 'empty',
    meaning:
      'Comma-separated `Host` names served besides loopback ones: every route with `AUTH=off`, `/mcp` in both modes',
  },
  {
    name: 'AUTH_FAILURE_LIMIT',
    group: 'auth',
    default: '`30`',
    meaning:
      'Failed authentications a minute from one client address, or with one credential prefix, before further failures get `429`; a valid credential is never refused',
  },
  {
    name: 'TRUST_PROXY',
    group: 'auth',
    default: '`false`',
    meaning:
      'Which peers may name the client in `X-Forwarded-For`: `false`, `true`, a hop count, or comma-separated addresses/CIDRs (`loopback` too); the failure limit and the request log use that client',
  },
  {
    name: 'SESSION_TTL_HOURS',
    group: 'auth',
    default: '`12`',
    meaning: 'Lifetime of a browser session (never longer than its token)',
  },
  {
    name: 'OUTBOUND_ALLOWED_HOSTS',
    group: 'outbound',
    default: 'empty',
    meaning:
      "Comma-separated hosts this server may reach on a loopback or private network (a caller's LLM `base_url`, a mailbox's IMAP host, a webhook URL): host names as written, IP addresses, or CIDR ranges (`10.0.0.0/8`); link-local and cloud metadata addresses are refused even when listed",
  },
  {
    name: 'INTAKE_ALLOWED_HOSTS',
    group: 'outbound',
    default: 'empty',
    meaning: 'Older name, still read: its entries join `OUTBOUND_ALLOWED_HOSTS`',
  },
  {
    name: 'LLM_ALLOWED_HOSTS',
    group: 'outbound',
    default: 'empty',
    meaning: 'Older name, still read: its entries join `OUTBOUND_ALLOWED_HOSTS`',
  },
  {
    name: 'LLM_PROVIDER',
    group: 'llm',
    default: 'chosen from the keys set (see below)',
    meaning: '`openai`, `anthropic` or `rules` (offline)',
  },
  {
    name: 'LLM_MODEL',
    group: 'llm',
    default: '`gpt-4.1-mini` / `claude-haiku-4-5` / `rules-v3`',
    meaning: 'Model name',
  },
  {
    name: 'LLM_BASE_URL',
    group: 'llm',
    default: "the provider's own",
    meaning: 'Any OpenAI-compatible server (Ollama, vLLM, LM Studio) or an Anthropic-compatible one',
  },
  {
    name: 'LLM_API_KEY',
    group: 'llm',
    default: '`OPENAI_API_KEY` / `ANTHROPIC_API_KEY`',
    meaning: 'Provider key; never logged, echoed or stored',
  },
  {
    name: 'OPENAI_API_KEY',
    group: 'llm',
    default: 'none',
    meaning:
      'Used when `LLM_API_KEY` is unset and the provider is `openai`; chooses `openai` when no provider is named',
  },
  { name: 'ANTHROPIC_API_KEY', group: 'llm', default: 'none', meaning: 'The same for `anthropic`' },
  { name: 'LLM_TEMPERATURE', group: 'llm', default: '`0`', meaning: '0.0–1.0 (not sent to Anthropic)' },
  { name: 'LLM_TIMEOUT_MS', group: 'llm', default: '`30000`', meaning: 'Per attempt' },
  { name: 'LLM_MAX_RETRIES', group: 'llm', default: '`2`', meaning: 'Retries after the first attempt (0–10)' },
  {
    name: 'LLM_CONCURRENCY',
    group: 'llm',
    default: '`16`',
    meaning: 'Provider calls one caller (a token; the client address with `AUTH=off`) may have in flight',
  },
  {
    name: 'LLM_QUEUE',
    group: 'llm',
    default: '`64`',
    meaning: 'Calls of one caller that may wait for a slot; one more is `429` with `Retry-After`',
  },
  {
    name: 'LLM_TOTAL_CONCURRENCY',
    group: 'llm',
    default: '`512`',
    meaning: 'Provider calls in flight in the process, all callers together',
  },
  {
    name: 'LLM_PRICES',
    group: 'llm',
    default: 'built-in table',
    meaning:
      "Path to a JSON price table per model (USD per million input and output tokens) for the usage report's cost",
  },
  {
    name: 'CLASSIFY_ALLOW_OVERRIDES',
    group: 'classify',
    default: '`true`',
    meaning: '`false` refuses per-request provider overrides with `403`',
  },
  {
    name: 'CLASSIFY_MAX_CHARS',
    group: 'classify',
    default: '`6000`',
    meaning: 'Budget of email text given to the model (head and tail kept)',
  },
  {
    name: 'CLASSIFY_RATE_LIMIT',
    group: 'classify',
    default: '`60`',
    meaning: 'Classifications per minute per token (duplicates served from the store are free)',
  },
  {
    name: 'DEDUPE_RETENTION_DAYS',
    group: 'classify',
    default: '`30`',
    meaning: 'Dedupe records (and per-call usage rows) older than this are purged',
  },
  {
    name: 'AGENTDESK_SECRET_KEY',
    group: 'intake',
    default: 'none',
    meaning:
      '32 bytes as hex or base64 (`openssl rand -hex 32`) sealing mailbox secrets, webhook signing secrets and the generated answer-link secret at rest; without it a mailbox with a secret is a `422` and a webhook cannot be made (`409`)',
  },
  {
    name: 'INTAKE_WORKER',
    group: 'intake',
    default: '`true`',
    meaning: 'Whether this instance watches mailboxes (the API answers either way)',
  },
  {
    name: 'INTAKE_POLL_S',
    group: 'intake',
    default: '`60`',
    meaning: "Poll fallback besides IMAP IDLE (the Graph delta query's period)",
  },
  {
    name: 'INTAKE_LEASE_S',
    group: 'intake',
    default: '`30`',
    meaning: 'How long a mailbox stays with the instance watching it after its last renewal',
  },
  {
    name: 'INTAKE_RECONNECT_MAX_S',
    group: 'intake',
    default: '`60`',
    meaning: 'Longest wait between reconnection attempts',
  },
  {
    name: 'INTAKE_CONCURRENCY',
    group: 'intake',
    default: '`8`',
    meaning: 'Messages of one mailbox classified at once (1–64)',
  },
  { name: 'INTAKE_IMPORT_MAX_MB', group: 'intake', default: '`100`', meaning: 'Largest `.eml` or mbox import' },
  {
    name: 'INTAKE_GRAPH_URL',
    group: 'intake',
    default: '`https://graph.microsoft.com/v1.0`',
    meaning: 'Microsoft Graph (tests point it at a fake)',
  },
  {
    name: 'INTAKE_GRAPH_LOGIN_URL',
    group: 'intake',
    default: '`https://login.microsoftonline.com`',
    meaning: 'Where Graph tokens are issued (tests point it at a fake)',
  },
  {
    name: 'SMTP_URL',
    group: 'mail',
    default: 'none (no mail)',
    meaning:
      '`smtp://[user[:password]@]host[:port]` (STARTTLS when offered; port 587) or `smtps://…` (TLS; port 465): where the desk sends mail; with `MAIL_FROM`, or neither. The password is never logged',
  },
  {
    name: 'SMTP_PASSWORD_FILE',
    group: 'mail',
    default: 'none',
    meaning: "A file holding the SMTP password (one trailing newline dropped), instead of the URL's; never both",
  },
  {
    name: 'MAIL_FROM',
    group: 'mail',
    default: 'none',
    meaning:
      "The mail's sender, `Desk <desk@example.org>` or an address; its domain ends the Message-IDs the desk makes",
  },
  {
    name: 'PUBLIC_URL',
    group: 'mail',
    default: 'none (no links in mail)',
    meaning: "The desk's address as people reach it, the base of the links in mail (`https://desk.example.org`)",
  },
  {
    name: 'INTAKE_REPLY_ADDRESS',
    group: 'mail',
    default: 'none (no Reply-To)',
    meaning:
      "The intake mailbox's address with `{token}` where the signed reply token goes (plus-addressing), e.g. `desk+{token}@example.org`",
  },
  {
    name: 'NOTIFY_LEASE_S',
    group: 'mail',
    default: '`300`',
    meaning:
      'How long a sender holds the mails it took (1–3600): after a crash mid-send they go again once it has passed, with the same `Message-ID`; shorter than a send can take (the SMTP timeouts), a slow send may go twice',
  },
  {
    name: 'LINK_SECRET',
    group: 'notify',
    default: 'made once, kept in the database',
    meaning:
      'At least 32 characters signing answer links and reply addresses (HMAC-SHA256); unset, 32 random bytes are made on first start and shared by every instance on the database (sealed under `AGENTDESK_SECRET_KEY` when set); never logged',
  },
  {
    name: 'LINK_SECRET_FILE',
    group: 'notify',
    default: 'none',
    meaning: 'A file holding `LINK_SECRET` (Docker secrets); not with `LINK_SECRET`',
  },
  {
    name: 'ANSWER_LINK_TTL',
    group: 'notify',
    default: '`7d`',
    meaning: 'How long an answer link in an email works: seconds, or with a unit (`90m`, `12h`, `7d`); 60 s to 366 d',
  },
  {
    name: 'WEBHOOK_RETENTION_DAYS',
    group: 'webhooks',
    default: '`30`',
    meaning:
      'Webhook deliveries (and their attempts) older than this are purged; a pending one is kept until it is sent or fails',
  },
  {
    name: 'WEBHOOK_LEASE_S',
    group: 'webhooks',
    default: '`60`',
    meaning:
      "How long an instance holds the endpoint it sends to (1–3600): after a crash its deliveries go from another instance once it has passed, with the same `webhook-id`; each hold sends at least one delivery, and more only while a send's 15 s still fit",
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    group: 'tracing',
    default: 'none',
    meaning: "The collector's base URL, e.g. `http://127.0.0.1:4318`; setting it turns tracing on",
  },
  {
    name: 'OTEL_SERVICE_NAME',
    group: 'tracing',
    default: '`agentdesk-work` / `agentdesk-classify`',
    meaning: '`service.name` of the spans',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_HEADERS',
    group: 'tracing',
    default: 'none',
    meaning: '`name=value,…` (percent-encoded values) sent with every export; never logged',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    group: 'tracing',
    default: '`http/json`',
    meaning: 'Only `http/json`; anything else stops start-up',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    group: 'tracing',
    default: '`http/json`',
    meaning: 'The same, for traces only',
  },
  {
    name: 'A2A_SKILLS',
    group: 'a2a',
    default: "none (the types of the desk's items and projects)",
    meaning: 'Comma-separated work types the agent card names as skills (docs/a2a.md)',
  },
  {
    name: 'A2A_DEFAULT_TYPE',
    group: 'a2a',
    default: '`task`',
    meaning: 'The type of an item made from an A2A message that names no skill',
  },
  {
    name: 'A2A_BLOCKING_WAIT_S',
    group: 'a2a',
    default: '`30`',
    meaning:
      'How long a blocking `SendMessage` waits for the task to finish or need input (0–600) before it answers the task as it stands',
  },
  {
    name: 'A2A_PUSH_GRACE_DAYS',
    group: 'a2a',
    default: '`7`',
    meaning:
      "Days (1–365) a task's push notification configs are kept after it ended, for the last notification's retries; then they are removed",
  },
];
