/**
 * An account as the admin API answers it (`GET`/`PATCH /admin/v1/accounts/{accountId}` and each
 * item of the listing): its fields, how many keys it has (revoked and expired ones included) and
 * whether a webhook endpoint is set.
 */
import { type AccountStore, AccountListing, Accounts, Errors, Plan, Webhooks } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** An account as the admin sees it. */
export const AdminAccount = Schema.Struct({
  id: Schema.String,
  name: Schema.NullOr(Schema.String).annotate({ description: "A name for people, or null." }),
  plan: Plan.Plan,
  limits: Plan.PlanLimits,
  status: AccountListing.AccountStatus.annotate({ description: "`suspended`: every request with the account's keys is refused (403 `account_suspended`)." }),
  createdAt: Schema.String,
  keys: Schema.Int.annotate({ description: "How many keys the account has, revoked and expired ones included." }),
  webhook: Schema.Boolean.annotate({ description: "Whether a webhook endpoint is set." })
}).annotate({ identifier: "AdminAccount" })

/**
 * The view of an account, built once with the handler from the accounts service and, when the
 * application delivers webhooks, the webhooks service.
 */
export const accountViews = Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  const webhooks = yield* Effect.serviceOption(Webhooks.Webhooks)
  const hasWebhook = (id: string): Effect.Effect<boolean, Errors.StoreUnavailable> =>
    Option.match(webhooks, {
      onNone: () => Effect.succeed(false),
      onSome: (w) =>
        w.getEndpoint(id).pipe(
          Effect.as(true),
          Effect.catchTags({ AccountNotFound: () => Effect.succeed(false), WebhookNotFound: () => Effect.succeed(false) })
        )
    })
  return (account: AccountStore.Account): Effect.Effect<typeof AdminAccount.Type, Errors.AccountNotFound | Errors.StoreUnavailable> =>
    Effect.map(
      Effect.all([accounts.listKeys(account.id), hasWebhook(account.id)]),
      ([keys, webhook]) => ({
        id: account.id,
        name: account.name,
        plan: account.plan,
        limits: account.limits,
        status: account.status,
        createdAt: new Date(account.createdAt).toISOString(),
        keys: keys.length,
        webhook
      })
    )
})
