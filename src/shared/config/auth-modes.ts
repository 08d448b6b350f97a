// AUTH: whether callers prove who they are. Here, not in src/auth, because the configuration
// reads it and src/shared imports no feature; no Node imports, as the web UI reads the type.

export const AUTH_MODES = ['tokens', 'off'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];
