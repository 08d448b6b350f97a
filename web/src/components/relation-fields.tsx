import { ItemPicker } from './item-picker.tsx';

// The parent and the dependencies of an item, as the submit form and the item editor set them
//: one item for the parent, up to 50 the item waits on.

/** As many dependencies as the service takes on one item. */
export const MAX_DEPENDENCIES = 50;

export function RelationFields(props: {
  /** Makes the inputs' ids unique on the page. */
  idPrefix: string;
  /** The item being edited: it can be neither its own parent nor its own dependency. */
  self?: string;
  parentId: string;
  dependsOn: readonly string[];
  onParent: (id: string) => void;
  onDependsOn: (ids: string[]) => void;
  errors?: { parent_id?: string | undefined; depends_on?: string | undefined };
}) {
  const self = props.self === undefined ? [] : [props.self];
  return (
    <fieldset class="relation-fields">
      <legend>Plan</legend>
      <ItemPicker
        id={`${props.idPrefix}-parent`}
        label="Parent item"
        hint="This item becomes one of its sub-items."
        multiple={false}
        value={props.parentId === '' ? [] : [props.parentId]}
        exclude={self}
        onChange={(ids) => props.onParent(ids[0] ?? '')}
        error={props.errors?.parent_id}
      />
      <ItemPicker
        id={`${props.idPrefix}-depends-on`}
        label="Waits on"
        hint={`Not claimable until these complete (at most ${MAX_DEPENDENCIES}).`}
        multiple={props.dependsOn.length < MAX_DEPENDENCIES}
        value={props.dependsOn}
        exclude={self}
        onChange={props.onDependsOn}
        error={props.errors?.depends_on}
      />
    </fieldset>
  );
}
