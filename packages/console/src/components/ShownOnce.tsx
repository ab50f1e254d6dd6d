/** A secret (an API key, a signing secret) shown once: the value as text, a copy button, and the warning it will not be shown again. */
import { useState } from "preact/hooks"

/** Props of ShownOnce. */
export interface ShownOnceProps {
  readonly label: string
  readonly value: string
}

/** The secret, once, with a button that copies it. */
export const ShownOnce = ({ label, value }: ShownOnceProps) => {
  const [copied, setCopied] = useState<string | undefined>(undefined)
  return (
    <div class="shown-once" role="status">
      <p class="warning">
        <strong>{label}</strong>: copy it now. It is shown only this once and cannot be shown again.
      </p>
      <p>
        <code class="secret" data-secret={label}>{value}</code>{" "}
        <button
          type="button"
          onClick={() => navigator.clipboard.writeText(value).then(
            () => setCopied("Copied."),
            () => setCopied("Copying was refused: select the text and copy it."))}
        >
          Copy
        </button>{" "}
        <span aria-live="polite">{copied ?? ""}</span>
      </p>
    </div>
  )
}
