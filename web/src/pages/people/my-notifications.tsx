import { useState } from 'preact/hooks';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { ProfileFields } from '../../components/profile-fields.tsx';
import { UserText } from '../../components/user-text.tsx';
import { api, toProblem } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import {
  type Person,
  type ProfileDraft,
  draftOf,
  EMPTY_PROFILE,
  myName,
  personPath,
  putPerson,
} from '../../lib/people.ts';
import { useSession } from '../../lib/session.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSubmit } from '../../lib/use-submit.ts';

// One's own profile: where the desk emails the signed-in person and how often. No profile yet
// (a 404) is an empty form that creates it.

export function MyNotificationsPage() {
  const session = useSession();
  const me = myName(session);
  if (me === null) {
    return (
      <section aria-labelledby="mine-title" class="stack">
        <h1 id="mine-title">My notifications</h1>
        <p class="muted">Set your name first (top right): your profile is kept under it.</p>
      </section>
    );
  }
  return <OwnProfile key={me} me={me} />;
}

function OwnProfile({ me }: { me: string }) {
  const profile = useLoad<Person | null>(personPath(me), async (signal) => {
    try {
      return (await api<Person>('GET', personPath(me), undefined, signal)).data;
    } catch (err) {
      if (toProblem(err).status === 404) return null;
      throw err;
    }
  });
  return (
    <section aria-labelledby="mine-title" class="stack">
      <h1 id="mine-title">My notifications</h1>
      <p class="muted">
        When an agent asks you or work waits for your review, the desk emails you here. Answer by replying to the email,
        or with one click on its buttons.
      </p>
      <ProblemMessage problem={profile.error} />
      {profile.loading && profile.data === null && !profile.error ? (
        <p class="muted">Loading…</p>
      ) : (
        !profile.error && <ProfileForm me={me} person={profile.data} onSaved={(p) => profile.setData(() => p)} />
      )}
      {profile.data && <TestEmail me={me} />}
    </section>
  );
}

function ProfileForm(props: { me: string; person: Person | null; onSaved: (p: Person) => void }) {
  const p = props.person;
  const [draft, setDraft] = useState<ProfileDraft>(() => (p ? draftOf(p) : EMPTY_PROFILE));
  const [saved, setSaved] = useState(false);
  const { busy, problem, run } = useSubmit();
  return (
    <form
      class="card stack"
      aria-label="My profile"
      onSubmit={async (e) => {
        e.preventDefault();
        setSaved(false);
        await run(async () => {
          props.onSaved(await putPerson(props.me, draft));
          setSaved(true);
        });
      }}
    >
      <h2>
        <UserText text={props.me} />
      </h2>
      {p === null ? (
        <p class="notice" role="note">
          You have no profile yet: the desk does not email you. Fill this in to be told.
        </p>
      ) : (
        <p class="muted small">Last changed {formatDateTime(p.updated_at)}</p>
      )}
      <ProfileFields idPrefix="mine" draft={draft} onChange={setDraft} />
      <ProblemMessage problem={problem} />
      {saved && (
        <p class="ok" role="status">
          Saved.
        </p>
      )}
      <div class="row end">
        <button type="submit" class="primary" disabled={busy}>
          {p === null ? 'Create my profile' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/** Queues a test email to one's own address; the outbox row says whether it went (item pages show rows too). */
function TestEmail({ me }: { me: string }) {
  const [queued, setQueued] = useState<string | null>(null);
  const { busy, problem, run } = useSubmit();
  return (
    <div class="card stack" aria-label="Test email">
      <p class="muted small">Check that the desk's mail reaches you.</p>
      <ProblemMessage problem={problem} />
      {queued && (
        <p class="ok" role="status">
          A test email to {queued} is on its way.
        </p>
      )}
      <div class="row end">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              setQueued(null);
              const sent = await api<{ address: string }>('POST', `${personPath(me)}/test-email`);
              setQueued(sent.data.address);
            })
          }
        >
          Send me a test email
        </button>
      </div>
    </div>
  );
}
