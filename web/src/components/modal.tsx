import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

// The native <dialog> opened with showModal() keeps focus inside, closes on Escape and makes the
// rest of the page inert, which is the keyboard behaviour a hand-made overlay would have to copy.
export function Modal(props: {
  open: boolean;
  labelledBy: string;
  onCancel?: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={props.labelledBy}
      onCancel={(e) => {
        if (props.onCancel) props.onCancel();
        else e.preventDefault();
      }}
    >
      {props.open && props.children}
    </dialog>
  );
}
