/** A many-listener notification, for wiring parts built in dependency order; `T` is what it carries. */
export function createSignal<T = void>() {
  const listeners: ((value: T) => void)[] = [];
  return {
    listen(listener: (value: T) => void): void {
      listeners.push(listener);
    },
    fire: (value: T): void => {
      for (const listener of listeners) listener(value);
    },
  };
}
