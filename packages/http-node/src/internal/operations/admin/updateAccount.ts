/**
 * `PATCH /admin/v1/accounts/{accountId}`: changes an account's name, plan (and an enterprise
 * account's limits) or status; answers the account as it now is. A suspended account's keys are
 * refused (403 `account_suspended`) on every instance within the key cache's bound.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { AccountListing, Accounts, Plan } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { AdminAccount, accountViews } from "./accounts.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"

/** The body of an account's update: any of its fields; a field left out stays as it is. */
export const UpdateAccount = Schema.Struct({
  name: Schema.optionalKey(Schema.NullOr(AccountListing.AccountName).annotate({ description: "A name (1..200 characters), or null to clear it." })),
  plan: Schema.optionalKey(Plan.Plan),
  limits: Schema.optionalKey(Plan.PlanLimits.annotate({
    description: "Enterprise only: required when the plan becomes enterprise, refused for the other plans."
  })),
  status: Schema.optionalKey(AccountListing.AccountStatus)
})

export const endpoint = HttpApiEndpoint.patch("updateAccount", "/accounts/:accountId", {
  params: AccountIdPath,
  payload: UpdateAccount,
  success: AdminAccount,
  error: [error(400), error(404), ...adminErrors]
})

export const updateAccount = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Effect.all([Accounts.Accounts, accountViews]), ([accounts, view]) => ({ path, payload }) =>
    Effect.map(Effect.flatMap(accounts.update(path.accountId, payload), view), (value) => ({ value })))
})
