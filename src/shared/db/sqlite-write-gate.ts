// The door our SQLite writers pass before taking the write lock; the checkpointer closes it for a RESTART,
// so a writer waits on a promise here instead of in SQLite's busy handler, which would stall the event loop.

export interface WriteGate {
  /** Null while writes may begin; else a promise that resolves when the gate opens. */
  closed(): Promise<void> | null;
  /** The connection has no transaction open (the driver says so after each statement). */
  idle(): void;
}

export interface ControlledWriteGate extends WriteGate {
  /** Closes the gate; `onIdle` runs once no transaction is open (at once if none is). */
  close(inTransaction: () => boolean, onIdle: () => void): void;
  open(): void;
}

/** Reads, and the statements of a transaction already open, go on while it is closed. */
export function createWriteGate(): ControlledWriteGate {
  let waiting: Promise<void> | null = null;
  let opened: (() => void) | null = null;
  let onIdle: (() => void) | null = null;

  const idle = () => {
    const then = onIdle;
    onIdle = null;
    then?.();
  };

  return {
    closed: () => waiting,
    idle() {
      if (onIdle) idle();
    },
    close(inTransaction, then) {
      if (!waiting) waiting = new Promise((resolve) => (opened = resolve));
      onIdle = then;
      if (!inTransaction()) idle();
    },
    open() {
      onIdle = null;
      const resolve = opened;
      waiting = null;
      opened = null;
      resolve?.();
    },
  };
}

/** Never closed: `:memory:`, and connections without a checkpointer. */
export const OPEN_GATE: WriteGate = { closed: () => null, idle: () => {} };
