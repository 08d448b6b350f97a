// The bounds and defaults of the agent loop's numbers, free of imports so that the web UI can
// bundle them (its Submit form shows the defaults) without pulling in TypeBox.

export const LEASE_LIMITS = { min: 1, max: 86_400, default: 300 } as const;
export const ATTEMPT_LIMITS = { min: 1, max: 100, default: 3 } as const;
export const RETRY_DELAY_LIMITS = { min: 0, max: 86_400, default: 30 } as const;
export const WAIT_LIMITS = { min: 0, max: 30 } as const;
