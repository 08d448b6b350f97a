import { badNames, parseNames } from '../lib/people.ts';

// A list of people's names typed into one box ("ada, bob"), as watchers and escalation take
// them. The names are checked as the service would, so a typo shows before saving.

export function PeopleField(props: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const bad = badNames(parseNames(props.value));
  const error = bad.length > 0 ? `Not a name: ${bad.join(', ')}` : '';
  return (
    <div class="field people-field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.id}
        value={props.value}
        autoComplete="off"
        spellcheck={false}
        placeholder="ada, bob"
        aria-describedby={error ? `${props.id}-hint ${props.id}-error` : `${props.id}-hint`}
        aria-invalid={error ? true : undefined}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
      <span id={`${props.id}-hint`} class="muted small">
        {props.hint}
      </span>
      {error && (
        <span id={`${props.id}-error`} class="field-error">
          {error}
        </span>
      )}
    </div>
  );
}

/** The names as the page shows them in one line, or the given word for none. */
export function namesText(names: readonly string[], none = '—'): string {
  return names.length === 0 ? none : names.join(', ');
}
