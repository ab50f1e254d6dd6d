/** Suspends or resumes an account, after a confirmation: `PATCH /admin/v1/accounts/{id}` with its `status`. */
import { useState } from "preact/hooks"
import { messageOf, request } from "../api.js"
import type { Account } from "../types.js"
import { ConfirmButton } from "./ConfirmButton.js"
import { ErrorText } from "./ErrorText.js"

/** Props of AccountStatus. */
export interface AccountStatusProps {
  readonly account: Account
  readonly onChanged: () => void
}

/** The suspend (or resume) button and its confirmation. */
export const AccountStatus = ({ account, onChanged }: AccountStatusProps) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const suspended = account.status === "suspended"
  const change = () =>
    request("PATCH", `/admin/v1/accounts/${encodeURIComponent(account.id)}`, { status: suspended ? "active" : "suspended" })
      .then(() => {
        setError(undefined)
        onChanged()
      }, (failed) => setError(messageOf(failed)))
  return (
    <section aria-labelledby="status">
      <h2 id="status">Status</h2>
      <p>{suspended ? "Suspended: every key of the account is refused (403 account_suspended)." : "Active."}</p>
      {suspended
        ? <ConfirmButton label="Resume account" question="Resume this account? Its keys will be accepted again." onConfirm={change} />
        : <ConfirmButton label="Suspend account" danger question="Suspend this account? Every request with its keys will be refused until it is resumed." onConfirm={change} />}
      <ErrorText error={error} />
    </section>
  )
}
