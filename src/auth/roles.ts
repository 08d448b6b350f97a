// Who may do what: the five roles, and the access level each route declares. This file is the
// role matrix; the server's access hook and the web UI (which hides what a role may not do)
// both read it, so the two cannot disagree. No Node imports: the UI bundles it.

export const ROLES = ['viewer', 'agent', 'member', 'intake', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The access level of a route, named by what it lets a caller do. A route states its level in
 * its options (`config: { access: ACCESS.read }`); one hook enforces it for every route.
 */
export const ACCESS = {
  /** Anyone, even without credentials: health, the API description, the UI's files, sign-in. */
  public: 'public',
  /** Read the work service and follow /events. */
  read: 'read',
  /** Submit work. */
  submit: 'submit',
  /** Move items through their lifecycle: claim, heartbeat, status changes (agents: their own). */
  work: 'work',
  /**
   * Comment on an item's conversation (agents: on items they hold, held or created), and answer a
   * question (agents: only one addressed to @creator of an item they created); the service checks.
   */
  comment: 'comment',
  /** Answer any question, pass a review, keep a profile: a person's call (isPerson), never an agent's. */
  answer: 'answer',
  /** Classify an email. */
  classify: 'classify',
  /** Set up recurring work (schedules): a person's call; agents read schedules with `read`. */
  schedule: 'schedule',
  /** Projects, tokens, deleting items. */
  admin: 'admin',
} as const;
export type Access = (typeof ACCESS)[keyof typeof ACCESS];

export const ROLES_BY_ACCESS = {
  public: ROLES,
  read: ['viewer', 'agent', 'member', 'admin'],
  submit: ['agent', 'member', 'intake', 'admin'],
  // A member moves the items dispatched to its own name, as an agent does (auth/policy.ts).
  work: ['agent', 'member', 'admin'],
  comment: ['agent', 'member', 'admin'],
  answer: ['member', 'admin'],
  classify: ['intake', 'admin'],
  schedule: ['member', 'admin'],
  admin: ['admin'],
} as const satisfies Record<Access, readonly Role[]>;

export function roleMay(role: Role, access: Access): boolean {
  return (ROLES_BY_ACCESS[access] as readonly Role[]).includes(role);
}

/** The header a browser session must send with every state-changing request (see csrf in access-hook.ts). */
export const CSRF_HEADER = 'x-agentdesk-csrf';
export const SESSION_COOKIE = 'agentdesk_session';

/** "An agent", "An intake", "A viewer": for messages that name a caller's role. */
export function roleWithArticle(role: string): string {
  return `${/^[aeiou]/i.test(role) ? 'An' : 'A'} ${role}`;
}
