/** Opens an account (`POST /admin/v1/accounts`): its plan (and, for enterprise, its limits); its first key is shown once. */
import { useState } from "preact/hooks"
import { messageOf, request } from "../api.js"
import { accountPath } from "../router.js"
import { ErrorText } from "./ErrorText.js"
import { Link } from "./Link.js"
import { limitsOf, PlanFields } from "./PlanFields.js"
import { ShownOnce } from "./ShownOnce.js"

interface Created {
  readonly id: string
  readonly key: string
}

/** Props of CreateAccount. */
export interface CreateAccountProps {
  /** Called once an account is created (the list shows it). */
  readonly onCreated: () => void
}

/** The form that creates an account, and the key it got. */
export const CreateAccount = ({ onCreated }: CreateAccountProps) => {
  const [plan, setPlan] = useState<string>("free")
  const [error, setError] = useState<string | undefined>(undefined)
  const [created, setCreated] = useState<Created | undefined>(undefined)
  return (
    <section aria-labelledby="create-account">
      <h2 id="create-account">Create an account</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          const data = new FormData(event.currentTarget)
          const body = { plan, ...limitsOf(data, plan) }
          request<Created>("POST", "/admin/v1/accounts", body).then((answer) => {
            setError(undefined)
            setCreated(answer.body)
            onCreated()
          }, (failed) => setError(messageOf(failed)))
        }}
      >
        <PlanFields id="new" plan={plan} onPlan={setPlan} />
        <button type="submit">Create account</button>
      </form>
      <ErrorText error={error} />
      {created
        ? (
          <div id="created-account">
            <p>Account <Link href={accountPath(created.id)}>{created.id}</Link> created.</p>
            <ShownOnce label="API key" value={created.key} />
          </div>
        )
        : null}
    </section>
  )
}
