// The item's own say on review before done: the project's default, or yes or no for
// this item whatever the project says. The API spells them null, true and false.

export type ReviewChoice = '' | 'yes' | 'no';

export function reviewChoice(value: boolean | null | undefined): ReviewChoice {
  return value === true ? 'yes' : value === false ? 'no' : '';
}

export function reviewValue(choice: ReviewChoice): boolean | null {
  return choice === 'yes' ? true : choice === 'no' ? false : null;
}

export function ReviewField(props: { id: string; value: ReviewChoice; onChange: (v: ReviewChoice) => void }) {
  return (
    <div class="field">
      <label for={props.id}>Review before done</label>
      <select
        id={props.id}
        name="review_required"
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value as ReviewChoice)}
      >
        <option value="">project default</option>
        <option value="yes">yes</option>
        <option value="no">no</option>
      </select>
    </div>
  );
}
