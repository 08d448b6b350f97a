import { useEffect, useRef, useState } from 'preact/hooks';
import type { WorkItem } from '../../../src/work/api-contract.ts';

// Keeps an edit form's If-Match honest: a save is refused only when someone changed what is being edited.

/**
 * The item an edit is based on, whose version a save sends as If-Match. It follows the item while
 * nothing is being edited; during an edit it moves on to a newer version only when the fields
 * being edited are the same in it (a heartbeat or a status move does not make a draft stale), so
 * a save is refused when, and only when, someone changed what the user is editing.
 */
export function useEditBase(item: WorkItem, editing: boolean, fields: (w: WorkItem) => string) {
  const [base, setBase] = useState(item);
  const fieldsRef = useRef(fields);
  fieldsRef.current = fields;
  useEffect(() => {
    setBase((b) => (!editing || (b.id === item.id && fieldsRef.current(b) === fieldsRef.current(item)) ? item : b));
  }, [item, editing]);
  return [base, setBase] as const;
}
