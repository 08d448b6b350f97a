import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiProblem, toProblem } from './api.ts';

export interface Loaded<T> {
  data: T | null;
  error: ApiProblem | null;
  loading: boolean;
  reload: () => void;
  setData: (update: (prev: T | null) => T | null) => void;
}

/**
 * Runs `load` whenever `key` changes (and on reload), dropping answers that arrive after a newer
 * request started so a slow old page never overwrites the one the user asked for last.
 */
export function useLoad<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [data, setDataState] = useState<T | null>(null);
  const [error, setError] = useState<ApiProblem | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const ctl = new AbortController();
    setLoading(true);
    loadRef.current(ctl.signal).then(
      (value) => {
        if (ctl.signal.aborted) return;
        setDataState(value);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (ctl.signal.aborted) return;
        setError(toProblem(err));
        setLoading(false);
      },
    );
    return () => ctl.abort();
  }, [key, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  const setData = useCallback((update: (prev: T | null) => T | null) => setDataState(update), []);
  return { data, error, loading, reload, setData };
}
