/** `petstore accounts create`: an account with its first key, printed once. */
import type { Plan } from "@petstore/core"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliFailure } from "../CommandFailure.js"
import { accountViewCommands } from "./AccountViewCommands.js"
import type { CommandServices } from "./CommandServices.js"
import { storeUnavailable } from "./Failures.js"
import { printIssued } from "./Output.js"

const IN_MEMORY_WARNING =
  "warning: the configured store is in memory, so nothing is kept: this account and its key are lost when the command exits. Configure a durable store, or use the admin API of a running server."

const planLimits = (
  plan: Plan.Plan,
  perMinute: Option.Option<number>,
  perDay: Option.Option<number>
): Effect.Effect<Plan.PlanLimits | undefined, CliFailure> => {
  if (plan !== "enterprise") {
    return Option.isSome(perMinute) || Option.isSome(perDay)
      ? Effect.fail(new CliFailure({ message: `--per-minute and --per-day apply only to the enterprise plan (${plan} has fixed limits)` }))
      : Effect.succeed(undefined)
  }
  if (Option.isNone(perMinute) || Option.isNone(perDay)) {
    return Effect.fail(new CliFailure({ message: "the enterprise plan needs both --per-minute and --per-day" }))
  }
  return Effect.succeed({ perMinute: perMinute.value, perDay: perDay.value })
}

const createAccount = ({ withAccounts }: CommandServices) =>
  Command.make(
    "create",
    {
      plan: Flag.Literals("plan", ["free", "pro", "business", "enterprise"]).pipe(
        Flag.withDescription("The account's plan; enterprise needs --per-minute and --per-day.")
      ),
      perMinute: Flag.Int("per-minute").pipe(
        Flag.withDescription("Enterprise only: requests per minute."),
        Flag.optional
      ),
      perDay: Flag.Int("per-day").pipe(Flag.withDescription("Enterprise only: requests per UTC day."), Flag.optional)
    },
    ({ perDay, perMinute, plan }) =>
      Effect.gen(function*() {
        const limits = yield* planLimits(plan, perMinute, perDay)
        const { account, key } = yield* withAccounts((accounts) =>
          accounts.create({ plan, limits }).pipe(
            Effect.catchTags({
              InvalidPlan: (e) => new CliFailure({ message: `invalid plan: ${e.reason}` }),
              StoreUnavailable: storeUnavailable
            })
          )
        )
        yield* printIssued([
          ["account", account.id],
          ["plan", `${account.plan} (${account.limits.perMinute} per minute, ${account.limits.perDay} per day)`]
        ], key)
        // Whether anything is kept is what a second, independent opening of the stores sees.
        const kept = yield* withAccounts((accounts) =>
          accounts.findAccount(account.id).pipe(
            Effect.as(true),
            Effect.catchTags({ AccountNotFound: () => Effect.succeed(false), StoreUnavailable: storeUnavailable })
          )
        )
        if (!kept) yield* Console.error(IN_MEMORY_WARNING)
      })
  ).pipe(Command.withDescription("Create an account; prints its id, plan and first key (shown only this once)."))

export const accounts = (services: CommandServices) =>
  Command.make("accounts").pipe(Command.withDescription("Manage accounts."), Command.withSubcommands([createAccount(services), ...accountViewCommands(services)]))
