/**
 * The sign-in form: the admin token, sent once to `POST /console/session` and then cleared from the
 * field; never kept in storage or put in a URL (the form posts by script; without script it would
 * post the form body, not a query).
 */
import { useState } from "preact/hooks"
import { ErrorText } from "../components/ErrorText.js"
import { signIn } from "../session.js"

/** Props of SignInPage. */
export interface SignInPageProps {
  readonly onSignedIn: () => void
}

/** The sign-in page. */
export const SignInPage = ({ onSignedIn }: SignInPageProps) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  return (
    <main id="main" class="sign-in">
      <h1>Pet Store console</h1>
      <form
        method="post"
        action="/console/session"
        onSubmit={(event) => {
          event.preventDefault()
          const form = event.currentTarget
          const field = form.elements.namedItem("token") as HTMLInputElement
          const token = field.value
          field.value = ""
          setBusy(true)
          signIn(token).then((result) => {
            setBusy(false)
            if (result.ok) onSignedIn()
            else setError(result.message)
          }, (failed: unknown) => {
            setBusy(false)
            setError(String(failed))
          })
        }}
      >
        <label for="token">Admin token</label>
        <input id="token" name="token" type="password" autocomplete="off" required spellcheck={false} />
        <button type="submit" disabled={busy}>Sign in</button>
        <ErrorText error={error} />
      </form>
    </main>
  )
}
