import { useMemo } from 'preact/hooks';
import { NOTIFY_HINTS, NOTIFY_MODES, type NotifyMode, type ProfileDraft, timeZones } from '../lib/people.ts';

// The fields of a person's profile, shared by the People page (an admin, anyone's) and My
// notifications (one's own). `idPrefix` keeps the labels' ids apart when both are on one page.

export function ProfileFields(props: {
  idPrefix: string;
  draft: ProfileDraft;
  onChange: (next: ProfileDraft) => void;
}) {
  const { draft: d, idPrefix: p } = props;
  const zones = useMemo(timeZones, []);
  const set = <K extends keyof ProfileDraft>(key: K, value: ProfileDraft[K]) => props.onChange({ ...d, [key]: value });
  return (
    <div class="stack profile-fields">
      <div class="row wrap">
        <label class="grow">
          Email
          <input
            name="email"
            type="email"
            required
            maxLength={254}
            autoComplete="email"
            value={d.email}
            onInput={(e) => set('email', e.currentTarget.value)}
          />
        </label>
        <div class="field">
          <label for={`${p}-notify`}>Email me</label>
          <select
            id={`${p}-notify`}
            name="notify"
            value={d.notify}
            aria-describedby={`${p}-notify-hint`}
            onChange={(e) => set('notify', e.currentTarget.value as NotifyMode)}
          >
            {NOTIFY_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p id={`${p}-notify-hint`} class="muted small">
        {NOTIFY_HINTS[d.notify]}
      </p>
      <div class="row wrap">
        <div class="field">
          <label for={`${p}-digest`}>Digest time</label>
          <input
            id={`${p}-digest`}
            name="digest_at"
            type="time"
            step={60}
            value={d.digest_at}
            onInput={(e) => set('digest_at', e.currentTarget.value)}
          />
        </div>
        <div class="field grow">
          <label for={`${p}-tz`}>Time zone</label>
          <select id={`${p}-tz`} name="tz" value={d.tz} onChange={(e) => set('tz', e.currentTarget.value)}>
            <option value="">UTC (default)</option>
            {/* a zone the service knows but this browser does not stays choosable */}
            {d.tz !== '' && !zones.includes(d.tz) && <option value={d.tz}>{d.tz}</option>}
            {zones.map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        </div>
      </div>
    </div>
  );
}
