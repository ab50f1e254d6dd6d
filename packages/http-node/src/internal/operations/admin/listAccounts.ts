/**
 * `GET /admin/v1/accounts`: the accounts, newest first, a page at a time, filtered by plan, status
 * and a text; the next page named by a `Link` (as `GET /v1/pets` names it).
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { AccountListing, Accounts, Plan } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { integer1To100, ResponseHeaders } from "../endpoint.js"
import * as Operation from "../operation.js"
import { AdminAccount, accountViews } from "./accounts.js"
import { ADMIN_PREFIX, adminErrors, error } from "./adminEndpoint.js"

/** The query of the account listing: filters, a page size and where the page starts. */
export const ListAccountsParams = Schema.Struct({
  plan: Schema.optionalKey(Plan.Plan.annotate({ description: "Only the accounts on this plan." })),
  status: Schema.optionalKey(AccountListing.AccountStatus.annotate({ description: "Only the accounts in this status." })),
  q: Schema.optionalKey(AccountListing.AccountSearch),
  limit: Schema.optionalKey(integer1To100.annotate({ description: "Accounts a page at most (1..100, default 20).", default: 20 })),
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "Opaque cursor from the `Link` header of the previous page." }))
})

/** The `Link` to the page after the one answered, with the same filters. */
const nextLink = (path: string, query: typeof ListAccountsParams.Type, limit: number, cursor: string): string => {
  const params = new URLSearchParams({ limit: String(limit) })
  if (query.plan !== undefined) params.set("plan", query.plan)
  if (query.status !== undefined) params.set("status", query.status)
  if (query.q !== undefined) params.set("q", query.q)
  params.set("cursor", cursor)
  return `<${path}?${params.toString().replace(/\+/g, "%20")}>; rel="next"`
}

export const endpoint = HttpApiEndpoint.get("listAccounts", "/accounts", {
  query: ListAccountsParams,
  success: Schema.Array(AdminAccount),
  error: [error(400), ...adminErrors]
}).annotate(ResponseHeaders, ["Link"])

export const listAccounts = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Effect.all([Accounts.Accounts, accountViews]), ([accounts, view]) => ({ urlParams }, { basePath }) => {
    const limit = urlParams.limit ?? 20
    const { plan, q, status } = urlParams
    return Effect.flatMap(accounts.list({ plan, status, q, limit, cursor: urlParams.cursor }), (page) =>
      Effect.map(Effect.forEach(page.accounts, view), (value) => ({
        value,
        ...(page.next === undefined ? {} : { headers: { Link: nextLink(`${basePath}${ADMIN_PREFIX}/accounts`, urlParams, limit, page.next) } })
      })))
  })
})
