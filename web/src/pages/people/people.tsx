import { useState } from 'preact/hooks';
import { Modal } from '../../components/modal.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { ProfileFields } from '../../components/profile-fields.tsx';
import { UserText, visibleBidi } from '../../components/user-text.tsx';
import { api } from '../../lib/api.ts';
import { type Person, type ProfileDraft, draftOf, EMPTY_PROFILE, personPath, putPerson } from '../../lib/people.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { USER_PATTERN } from '../../lib/user.ts';

// Admins keep everyone's profile: where the desk writes to each person and how often. A person's
// name is the one its member token acts as (X-User on an open desk), as watchers name them.

function when(p: Person): string {
  if (p.notify !== 'digest') return '—';
  return `${p.digest_at ?? 'no time set'} ${p.tz ?? 'UTC'}`;
}

export function PeoplePage() {
  const people = useLoad<Person[]>(
    'people',
    async (signal) => (await api<Person[]>('GET', '/people', undefined, signal)).data,
  );
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Person | null>(null);
  const { busy, problem, run } = useSubmit();

  const remove = async (p: Person) => {
    await run(async () => {
      try {
        await api('DELETE', personPath(p.name));
        people.reload();
      } finally {
        setDeleting(null);
      }
    });
  };

  return (
    <section aria-labelledby="people-title" class="stack">
      <h1 id="people-title">People</h1>
      <p class="muted">
        Who the desk emails when an agent asks or work waits for review. A question goes to the people it names, else to
        the item's and its project's watchers and the item's creator — each only with a profile here.
      </p>
      <AddPerson onSaved={() => people.reload()} />
      <ProblemMessage problem={problem ?? people.error} />
      {people.data === null ? (
        !people.error && <p class="muted">Loading…</p>
      ) : people.data.length === 0 ? (
        <p class="empty">No profiles yet: nobody is told of anything by email.</p>
      ) : (
        <div class="table-wrap">
          <table class="people cards-on-phone">
            <caption class="visually-hidden">People's profiles</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Mode</th>
                <th scope="col">Digest at</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {people.data.map((p) =>
                editing === p.name ? (
                  <tr key={p.name} class="editing">
                    <td colSpan={5}>
                      <EditPerson
                        person={p}
                        onDone={(saved) => {
                          setEditing(null);
                          if (saved) people.reload();
                        }}
                      />
                    </td>
                  </tr>
                ) : (
                  <tr key={p.name} data-person={p.name}>
                    <td>
                      <strong>
                        <UserText text={p.name} />
                      </strong>
                    </td>
                    <td data-label="Email" class="email break">
                      <UserText text={p.email} />
                    </td>
                    <td data-label="Mode">{p.notify}</td>
                    <td data-label="Digest at">{when(p)}</td>
                    <td class="actions">
                      <div class="row end">
                        <button
                          type="button"
                          onClick={() => setEditing(p.name)}
                          aria-label={`Edit ${visibleBidi(p.name)}`}
                        >
                          Edit
                        </button>
                        <button
                          type="button"
                          class="danger subtle"
                          onClick={() => setDeleting(p)}
                          aria-label={`Delete ${visibleBidi(p.name)}`}
                        >
                          Delete…
                        </button>
                      </div>
                    </td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        </div>
      )}
      <Modal open={deleting !== null} labelledBy="delete-person-title" onCancel={() => setDeleting(null)}>
        <div class="stack">
          <h2 id="delete-person-title">Delete the profile of “{deleting?.name}”?</h2>
          <p>The desk emails this person nothing more. Their name stays on the items and projects that list it.</p>
          <div class="row end">
            <button type="button" autoFocus onClick={() => setDeleting(null)}>
              Keep it
            </button>
            <button
              type="button"
              class="danger solid"
              disabled={busy}
              onClick={() => deleting && void remove(deleting)}
            >
              Delete
            </button>
          </div>
        </div>
      </Modal>
    </section>
  );
}

function AddPerson(props: { onSaved: () => void }) {
  const [name, setName] = useState('');
  const [draft, setDraft] = useState<ProfileDraft>(EMPTY_PROFILE);
  const { busy, problem, run } = useSubmit();
  return (
    <form
      class="card stack"
      aria-label="New person"
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          await putPerson(name.trim(), draft);
          setName('');
          setDraft(EMPTY_PROFILE);
          props.onSaved();
        });
      }}
    >
      <h2>Add a person</h2>
      <label>
        Name (as the person signs in)
        <input
          name="name"
          required
          pattern={USER_PATTERN}
          maxLength={64}
          autoComplete="off"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <ProfileFields idPrefix="new-person" draft={draft} onChange={setDraft} />
      <ProblemMessage problem={problem} />
      <div class="row end">
        <button type="submit" class="primary" disabled={busy}>
          Save person
        </button>
      </div>
    </form>
  );
}

function EditPerson(props: { person: Person; onDone: (saved: boolean) => void }) {
  const p = props.person;
  const [draft, setDraft] = useState<ProfileDraft>(() => draftOf(p));
  const { busy, problem, run } = useSubmit();
  return (
    <form
      class="stack"
      aria-label={`Edit ${p.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          await putPerson(p.name, draft);
          props.onDone(true);
        });
      }}
    >
      <h3>
        <UserText text={p.name} />
      </h3>
      <ProfileFields idPrefix={`edit-${p.name}`} draft={draft} onChange={setDraft} />
      <ProblemMessage problem={problem} />
      <div class="row end">
        <button type="button" onClick={() => props.onDone(false)}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          Save
        </button>
      </div>
    </form>
  );
}
