/**
 * A button whose action asks first: a modal `<dialog>` (focus moves into it, Escape cancels) saying
 * what will happen, with Cancel and the action's own label.
 */
import { useRef } from "preact/hooks"

/** Props of ConfirmButton. */
export interface ConfirmButtonProps {
  readonly label: string
  readonly question: string
  readonly onConfirm: () => void
  readonly danger?: boolean
}

/** A button that opens a confirmation dialog and runs `onConfirm` only when confirmed. */
export const ConfirmButton = ({ label, question, onConfirm, danger }: ConfirmButtonProps) => {
  const dialog = useRef<HTMLDialogElement>(null)
  return (
    <>
      <button type="button" class={danger ? "danger" : undefined} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-label={label}>
        <form method="dialog">
          <p>{question}</p>
          <div class="actions">
            <button type="submit" value="cancel" autofocus>Cancel</button>
            <button
              type="submit"
              value="confirm"
              class={danger ? "danger" : undefined}
              onClick={() => onConfirm()}
            >
              {label}
            </button>
          </div>
        </form>
      </dialog>
    </>
  )
}
