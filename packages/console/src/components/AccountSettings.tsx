/** Edits an account's name, plan and (enterprise) limits: `PATCH /admin/v1/accounts/{id}`. */
import { useState } from "preact/hooks"
import { messageOf, request } from "../api.js"
import type { Account } from "../types.js"
import { ErrorText } from "./ErrorText.js"
import { limitsOf, PlanFields } from "./PlanFields.js"

/** Props of AccountSettings. */
export interface AccountSettingsProps {
  readonly account: Account
  readonly onSaved: () => void
}

/** The body of the PATCH: the name (empty: none), the plan, and the limits for enterprise. */
const patchOf = (data: FormData, plan: string) => {
  const name = String(data.get("name") ?? "").trim()
  return {
    name: name === "" ? null : name,
    plan,
    ...limitsOf(data, plan)
  }
}

/** The settings form. */
export const AccountSettings = ({ account, onSaved }: AccountSettingsProps) => {
  const [plan, setPlan] = useState(account.plan)
  const [error, setError] = useState<string | undefined>(undefined)
  const [saved, setSaved] = useState(false)
  return (
    <section aria-labelledby="settings">
      <h2 id="settings">Settings</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          setSaved(false)
          request("PATCH", `/admin/v1/accounts/${encodeURIComponent(account.id)}`, patchOf(new FormData(event.currentTarget), plan))
            .then(() => {
              setError(undefined)
              setSaved(true)
              onSaved()
            }, (failed) => setError(messageOf(failed)))
        }}
      >
        <label for="account-name">Name</label>
        <input id="account-name" name="name" defaultValue={account.name ?? ""} />
        <PlanFields id="account" plan={plan} onPlan={setPlan} limits={account.limits} />
        <button type="submit">Save</button>
        {saved ? <span role="status">Saved.</span> : null}
      </form>
      <ErrorText error={error} />
    </section>
  )
}
