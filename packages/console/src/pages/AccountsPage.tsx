/**
 * The accounts (`/console/accounts`): search (`q`), filters (plan, status), a page at a time
 * (`GET /admin/v1/accounts`, the next page from its `Link` header); the query is the page's URL, so
 * a search can be linked to. Creating an account is on this page too.
 */
import { request } from "../api.js"
import { CreateAccount } from "../components/CreateAccount.js"
import { ErrorText } from "../components/ErrorText.js"
import { Link } from "../components/Link.js"
import { useLoad } from "../components/useLoad.js"
import { nextCursor } from "../links.js"
import { time } from "../format.js"
import { accountPath, navigate } from "../router.js"
import { type Account, PLANS } from "../types.js"

/** Props of AccountsPage. */
export interface AccountsPageProps {
  readonly query: URLSearchParams
}

const FILTERS = ["q", "plan", "status", "cursor"] as const

const listPath = (query: URLSearchParams): string => {
  const params = new URLSearchParams()
  for (const name of FILTERS) {
    const value = query.get(name)
    if (value !== null && value !== "") params.set(name, value)
  }
  params.set("limit", "20")
  return `/admin/v1/accounts?${params}`
}

/** This search's page at `cursor`, or its first page. */
const pagePath = (query: URLSearchParams, cursor: string | undefined): string => {
  const params = new URLSearchParams(query)
  if (cursor === undefined) params.delete("cursor")
  else params.set("cursor", cursor)
  return params.size > 0 ? `/console/accounts?${params}` : "/console/accounts"
}

/** The accounts page. */
export const AccountsPage = ({ query }: AccountsPageProps) => {
  const key = query.toString()
  const page = useLoad(async () => {
    const answer = await request<ReadonlyArray<Account>>("GET", listPath(query))
    return { accounts: answer.body, next: nextCursor(answer.headers.get("link")) }
  }, [key])
  return (
    <section>
      <h1>Accounts</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault()
          const data = new FormData(event.currentTarget)
          const params = new URLSearchParams()
          for (const name of ["q", "plan", "status"]) {
            const value = String(data.get(name) ?? "")
            if (value !== "") params.set(name, value)
          }
          const href = `/console/accounts${params.size > 0 ? `?${params}` : ""}`
          // The same search again reads the list again (it may have changed).
          if (href === `${location.pathname}${location.search}`) page.reload()
          else navigate(href)
        }}
      >
        <label for="q">Search</label>
        <input id="q" name="q" type="search" defaultValue={query.get("q") ?? ""} />
        <label for="plan-filter">Plan</label>
        <select id="plan-filter" name="plan" defaultValue={query.get("plan") ?? ""}>
          <option value="">any</option>
          {PLANS.map((plan) => <option key={plan} value={plan}>{plan}</option>)}
        </select>
        <label for="status-filter">Status</label>
        <select id="status-filter" name="status" defaultValue={query.get("status") ?? ""}>
          <option value="">any</option>
          <option value="active">active</option>
          <option value="suspended">suspended</option>
        </select>
        <button type="submit">Search</button>
      </form>
      <ErrorText error={page.error} />
      {page.value
        ? (
          <>
            <table id="accounts">
              <thead>
                <tr><th scope="col">Account</th><th scope="col">Name</th><th scope="col">Plan</th><th scope="col">Status</th><th scope="col">Created</th></tr>
              </thead>
              <tbody>
                {page.value.accounts.map((a) => (
                  <tr key={a.id}>
                    <td><Link href={accountPath(a.id)}>{a.id}</Link></td>
                    <td>{a.name ?? "—"}</td>
                    <td>{a.plan}</td>
                    <td>{a.status}</td>
                    <td>{time(a.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {page.value.accounts.length === 0 ? <p>No account matches.</p> : null}
            <p class="paging">
              {query.has("cursor") ? <Link href={pagePath(query, undefined)}>First page</Link> : null}
              {page.value.next !== undefined ? <Link href={pagePath(query, page.value.next)}>Next page</Link> : null}
            </p>
          </>
        )
        : null}
      <CreateAccount onCreated={page.reload} />
    </section>
  )
}
