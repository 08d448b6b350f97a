// Pieces shared by the forms that write a work item's fields (Submit, Edit item).

export const TYPE_PATTERN = '[A-Za-z0-9][A-Za-z0-9_.:\\-]{0,63}';
export const TYPE_HINT = 'Letters, digits and _ . : -, starting with a letter or digit';

export function PriorityOptions() {
  return (
    <>
      <option value="1">1 · highest</option>
      <option value="2">2</option>
      <option value="3">3 · normal</option>
      <option value="4">4</option>
      <option value="5">5 · lowest</option>
    </>
  );
}
