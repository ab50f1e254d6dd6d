/** The accounts with the most requests (or refusals) over the last 24 hours, from `GET /admin/v1/usage/top`. */
import { get } from "../api.js"
import { accountPath } from "../router.js"
import { ErrorText } from "./ErrorText.js"
import { Link } from "./Link.js"
import { useLoad } from "./useLoad.js"

interface Top {
  readonly accounts: ReadonlyArray<{ readonly accountId: string; readonly total: number; readonly refused: number }>
}

/** Props of TopAccounts. */
export interface TopAccountsProps {
  readonly by: "total" | "refused"
  readonly title: string
}

/** A table of the top accounts. */
export const TopAccounts = ({ by, title }: TopAccountsProps) => {
  const top = useLoad(() => get<Top>(`/admin/v1/usage/top?by=${by}&limit=10`), [by])
  return (
    <div>
      <h2>{title}</h2>
      <ErrorText error={top.error} />
      {top.value && top.value.accounts.length === 0 ? <p>No requests in the last 24 hours.</p> : null}
      {top.value && top.value.accounts.length > 0
        ? (
          <table id={`top-${by}`}>
            <thead><tr><th scope="col">Account</th><th scope="col">Requests</th><th scope="col">Refused</th></tr></thead>
            <tbody>
              {top.value.accounts.map((a) => (
                <tr key={a.accountId}>
                  <td><Link href={accountPath(a.accountId)}>{a.accountId}</Link></td>
                  <td>{a.total}</td>
                  <td>{a.refused}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
        : null}
    </div>
  )
}
