// The name sent as X-User, asked once and kept in this browser. The service applies the same
// rule as for agent names, so the form checks it up front instead of collecting 422s later.

const KEY = 'agentdesk.user';
export const USER_PATTERN = '[A-Za-z0-9_.@\\-]{1,64}';
const userRe = new RegExp(`^${USER_PATTERN}$`);

export function isValidUserName(name: string): boolean {
  return userRe.test(name);
}

export function readUser(): string | null {
  try {
    const name = localStorage.getItem(KEY);
    return name !== null && isValidUserName(name) ? name : null;
  } catch {
    return null; // storage disabled (private mode, policy): ask again each visit
  }
}

export function saveUser(name: string): void {
  try {
    localStorage.setItem(KEY, name);
  } catch {
    // the name still applies for this page's lifetime
  }
  current = name;
}

let current: string | null = readUser();

export function currentUser(): string | null {
  return current;
}
