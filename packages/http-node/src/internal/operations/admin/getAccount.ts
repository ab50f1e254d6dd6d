/**
 * `GET /admin/v1/accounts/{accountId}`: the account, its number of keys and whether it has a
 * webhook endpoint.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { Accounts } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Operation from "../operation.js"
import { AdminAccount, accountViews } from "./accounts.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"

export const endpoint = HttpApiEndpoint.get("getAccount", "/accounts/:accountId", {
  params: AccountIdPath,
  success: AdminAccount,
  error: [error(404), ...adminErrors]
})

export const getAccount = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Effect.all([Accounts.Accounts, accountViews]), ([accounts, view]) => ({ path }) =>
    Effect.map(Effect.flatMap(accounts.findAccount(path.accountId), view), (value) => ({ value })))
})
