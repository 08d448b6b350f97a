/** A many-listener notification with no payload, for wiring parts built in dependency order. */
export function createSignal() {
  const listeners: (() => void)[] = [];
  return {
    listen(listener: () => void): void {
      listeners.push(listener);
    },
    fire: (): void => {
      for (const listener of listeners) listener();
    },
  };
}
