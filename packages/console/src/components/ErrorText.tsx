/** An API error's message (or nothing), announced to screen readers as it appears. */

/** Props of ErrorText. */
export interface ErrorTextProps {
  readonly error: string | undefined
}

/** The message of the last failed call, as text, in an alert region. */
export const ErrorText = ({ error }: ErrorTextProps) =>
  error === undefined ? null : <p class="error" role="alert">{error}</p>
