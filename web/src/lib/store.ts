import { useEffect, useState } from 'preact/hooks';

// The page's few shared values (session, live state, projects, the needs-you count) each live in
// one module-level store; components read them with useStore and re-render when they change.

export interface Store<T> {
  get(): T;
  set(next: T): void;
  /** Calls `listener` with every new value until the returned function is called. */
  subscribe(listener: (value: T) => void): () => void;
}

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<(value: T) => void>();
  return {
    get: () => value,
    set(next) {
      value = next;
      for (const listener of listeners) listener(next);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** The store's value, kept current while the component is mounted. */
export function useStore<T>(store: Store<T>): T {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    const stop = store.subscribe(setValue);
    // it may have changed between the render and this effect
    setValue(store.get());
    return stop;
  }, [store]);
  return value;
}
