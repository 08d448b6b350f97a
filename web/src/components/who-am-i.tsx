import { useState } from 'preact/hooks';
import { isValidUserName, USER_PATTERN } from '../lib/user.ts';
import { Modal } from './modal.tsx';

export function WhoAmI(props: {
  open: boolean;
  initial: string;
  onDone: (name: string) => void;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(props.initial);
  const valid = isValidUserName(name.trim());
  return (
    <Modal open={props.open} labelledBy="whoami-title" {...(props.onCancel ? { onCancel: props.onCancel } : {})}>
      <form
        method="dialog"
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) props.onDone(name.trim());
        }}
      >
        <h2 id="whoami-title">Who are you?</h2>
        <p class="muted">Your name is recorded as the creator of the work you submit.</p>
        <label>
          Your name
          <input
            name="user"
            value={name}
            required
            pattern={USER_PATTERN}
            maxLength={64}
            autoComplete="username"
            // a dialog's first field is where the keyboard user already is
            autoFocus
            onInput={(e) => setName(e.currentTarget.value)}
            aria-describedby="whoami-hint"
          />
        </label>
        <small id="whoami-hint" class="muted">
          Letters, digits and <code>_ . @ -</code>, up to 64 characters.
        </small>
        <div class="row end">
          {props.onCancel && (
            <button type="button" onClick={props.onCancel}>
              Cancel
            </button>
          )}
          <button type="submit" class="primary" disabled={!valid}>
            Continue
          </button>
        </div>
      </form>
    </Modal>
  );
}
