import { useState } from 'preact/hooks';
import { type ApiProblem, toProblem } from './api.ts';

// The forms' shared shape: busy while the request runs, and the service's refusal (its
// problem+json) kept to show under the form until the next try.

export interface Submit {
  busy: boolean;
  problem: ApiProblem | null;
  setProblem: (problem: ApiProblem | null) => void;
  /** Runs `work` with the form busy; a throw becomes the problem shown (and `onProblem` is told). */
  run: (work: () => Promise<void>, onProblem?: (problem: ApiProblem) => void) => Promise<boolean>;
}

export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const run = async (work: () => Promise<void>, onProblem?: (problem: ApiProblem) => void): Promise<boolean> => {
    setBusy(true);
    setProblem(null);
    try {
      await work();
      return true;
    } catch (err) {
      const p = toProblem(err);
      setProblem(p);
      onProblem?.(p);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, setProblem, run };
}
