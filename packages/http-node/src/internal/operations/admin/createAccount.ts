/**
 * `POST /admin/v1/accounts`: opens an account on a plan (its limits, or the plan's); `201` with the
 * account and its first API key, shown only in this answer.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import { Accounts, Plan } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { adminErrors, error } from "./adminEndpoint.js"

/** The body of an account's creation. */
export const CreateAccount = Schema.Struct({
  plan: Plan.Plan,
  limits: Schema.optionalKey(Plan.PlanLimits)
})

/** A created account and its first key, shown once. */
export const CreatedAccount = Schema.Struct({
  id: Schema.String,
  plan: Plan.Plan,
  limits: Plan.PlanLimits,
  key: Schema.String.annotate({ description: "The full API key. It is shown only here, once." }),
  keyId: Schema.String,
  prefix: Schema.String
})

export const endpoint = HttpApiEndpoint.post("createAccount", "/accounts", {
  payload: CreateAccount,
  success: CreatedAccount.pipe(HttpApiSchema.status(201)),
  error: [error(400), ...adminErrors]
})

export const createAccount = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Accounts.Accounts, (accounts) => ({ payload }) =>
    Effect.map(accounts.create({ plan: payload.plan, limits: payload.limits }), ({ account, key }) => ({
      value: {
        id: account.id,
        plan: account.plan,
        limits: account.limits,
        key: Redacted.value(key.key),
        keyId: key.id,
        prefix: key.prefix
      }
    })))
})
