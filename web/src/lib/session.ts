import type { AuthMode } from '../../../src/shared/config/auth-modes.ts';
import { type Access, CSRF_HEADER, type Role, roleMay } from '../../../src/auth/roles.ts';
import { createStore, useStore } from './store.ts';

// Who the browser is signed in as. With AUTH=tokens the page never holds a token: it trades one
// for an HttpOnly session cookie, which the browser then sends by itself, EventSource included.
// With AUTH=off there is nobody to sign in; the desk is open as before.

export interface Principal {
  name: string;
  role: Role;
  agent: string | null;
  token_id: string | null;
}

export interface SessionState {
  /** null until GET /session has answered. */
  auth: AuthMode | null;
  principal: Principal | null;
}

const session = createStore<SessionState>({ auth: null, principal: null });
const set = session.set;

export function currentSession(): SessionState {
  return session.get();
}

/** Headers every request of the page carries: the CSRF header proves it comes from this page. */
export function sessionHeaders(): Record<string, string> {
  return { [CSRF_HEADER]: '1' };
}

async function send(method: 'GET' | 'POST' | 'DELETE', body?: unknown): Promise<Response> {
  return fetch('session', {
    method,
    headers: {
      accept: 'application/json',
      ...sessionHeaders(),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
    credentials: 'same-origin',
  });
}

/** Asks the service who we are; keeps the old answer when it cannot be reached. */
export async function loadSession(): Promise<SessionState> {
  try {
    const res = await send('GET');
    if (res.ok) set((await res.json()) as SessionState);
    else if (res.status === 401) set({ auth: 'tokens', principal: null });
  } catch {
    // offline: the live indicator says so; try again on the next 401 or reload
  }
  return session.get();
}

export class SignInRefused extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

/** Trades the token for the session cookie (POST /session). */
export async function signIn(token: string): Promise<Principal> {
  let res: Response;
  try {
    res = await send('POST', { token });
  } catch {
    throw new SignInRefused(0, 'The service could not be reached.');
  }
  const body = (await res.json().catch(() => ({}))) as { principal?: Principal; detail?: string };
  if (!res.ok || !body.principal) {
    throw new SignInRefused(
      res.status,
      res.status === 401 ? 'That token is not valid.' : (body.detail ?? `Sign-in failed (HTTP ${res.status}).`),
    );
  }
  set({ auth: 'tokens', principal: body.principal });
  return body.principal;
}

export async function signOut(): Promise<void> {
  await send('DELETE').catch(() => undefined);
  set({ auth: session.get().auth, principal: null });
}

/** The API answered 401: the session ended (revoked, expired, signed out elsewhere); back to sign-in. */
export function sessionEnded(): void {
  const state = session.get();
  if (state.auth === 'tokens' && state.principal !== null) set({ auth: 'tokens', principal: null });
}

export function useSession(): SessionState {
  return useStore(session);
}

/** Whether the signed-in caller may use routes of this access level; everyone may with AUTH=off. */
export function can(session: SessionState, access: Access): boolean {
  if (session.auth === 'off') return true;
  return session.principal !== null && roleMay(session.principal.role, access);
}

/** Whether the caller may move this item: admins any, agents their own. */
export function mayChangeItem(session: SessionState, assignedAgent: string | null): boolean {
  if (session.auth === 'off') return true;
  const p = session.principal;
  if (p === null || !roleMay(p.role, 'work')) return false;
  return p.role === 'admin' || (p.agent !== null && p.agent === assignedAgent);
}
