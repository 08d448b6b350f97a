import { useState } from 'preact/hooks';
import { signIn, SignInRefused } from '../lib/session.ts';

// The sign-in page of AUTH=tokens: trades a token for the session cookie.

/**
 * The token goes to POST /session once, in a request body, and is dropped: the page keeps
 * nothing but what the HttpOnly cookie stands for, and no URL ever carries it.
 */
export function SignInPage() {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // The whole page is its main landmark: the desk's own <main> is not drawn before sign-in.
  return (
    <main id="main" class="sign-in" aria-labelledby="sign-in-title">
      <form
        class="card stack"
        method="post"
        onSubmit={async (e) => {
          e.preventDefault();
          if (token.trim() === '') return;
          setBusy(true);
          setProblem(null);
          try {
            await signIn(token.trim());
            setToken('');
          } catch (err) {
            setProblem(err instanceof SignInRefused ? err.message : String(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1 id="sign-in-title">Sign in to agentdesk</h1>
        <p class="muted">
          Paste an API token (<code>adk_…</code>). Ask an admin for one, or create the first with{' '}
          <code>agentdesk token create --role admin --name you</code>.
        </p>
        <label>
          Token
          <input
            name="token"
            type="password"
            value={token}
            required
            autoComplete="off"
            spellcheck={false}
            autoFocus
            onInput={(e) => setToken(e.currentTarget.value)}
          />
        </label>
        {problem && (
          <div class="problem" role="alert">
            <strong>{problem}</strong>
          </div>
        )}
        <div class="row end">
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </div>
      </form>
    </main>
  );
}
