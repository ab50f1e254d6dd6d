/** `petstore usage`: an account's requests per hour or day by outcome, or the busiest accounts. */
import { UsageRange } from "@petstore/core"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { CliFailure } from "../CommandFailure.js"
import * as UsageChart from "../UsageChart.js"
import type { CommandServices } from "./CommandServices.js"
import { storeUnavailable, unknownAccount } from "./Failures.js"

/** The range `--since` names, ending now: hourly up to 2 days, daily beyond. */
const usageRange = (since: string, now: number): Effect.Effect<UsageRange.UsageRange, CliFailure> => {
  const match = /^(\d{1,4})([hd])$/.exec(since.trim())
  if (match === null) return Effect.fail(new CliFailure({ message: `--since must be a number of hours or days such as 24h or 7d, got ${JSON.stringify(since)}` }))
  const hours = Number(match[1]) * (match[2] === "d" ? 24 : 1)
  return Result.match(UsageRange.resolve({ granularity: hours <= 48 ? "hour" : "day", from: now - hours * 3_600_000, to: now, now }), {
    onFailure: (reason) => Effect.fail(new CliFailure({ message: `--since ${since}: ${reason}` })),
    onSuccess: Effect.succeed
  })
}

const label = (range: UsageRange.UsageRange): string =>
  `${UsageChart.label(range.granularity, range.from)} to ${UsageChart.label(range.granularity, range.to)} UTC, per ${range.granularity}`

export const usage = ({ withUsage }: CommandServices) =>
  Command.make(
    "usage",
    {
      account: Argument.String("ACCOUNT").pipe(Argument.withDescription("The account's id (acc_...); omit it with --top."), Argument.optional),
      since: Flag.String("since").pipe(
        Flag.withDescription("How far back: 24h, 7d ... (hours: one row per hour; more than 2 days: one row per day). Default 24h."),
        Flag.withDefault("24h")
      ),
      byKey: Flag.Boolean("by-key").pipe(Flag.withDescription("A table per key of the account, after the account's."), Flag.withDefault(false)),
      top: Flag.Boolean("top").pipe(Flag.withDescription("The accounts with most traffic instead (with --refused: most refusals)."), Flag.withDefault(false)),
      refused: Flag.Boolean("refused").pipe(Flag.withDescription("With --top: rank by refused requests."), Flag.withDefault(false))
    },
    ({ account, byKey, refused, since, top }) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const range = yield* usageRange(since, now)
        if (top) {
          const accounts = yield* withUsage((usage) => usage.top(range, refused ? "refused" : "total", 20).pipe(Effect.catchTags({ StoreUnavailable: storeUnavailable })))
          yield* Console.log(accounts.length === 0 ? "no traffic in this range" : UsageChart.top(accounts))
          return
        }
        if (Option.isNone(account)) return yield* new CliFailure({ message: "name an ACCOUNT, or use --top" })
        const { keys, stored } = yield* withUsage((usage, accounts) =>
          Effect.all({ keys: accounts.listKeys(account.value), stored: usage.read(account.value, range) }).pipe(
            Effect.catchTags({ AccountNotFound: unknownAccount, StoreUnavailable: storeUnavailable })
          )
        )
        yield* Console.log(`account ${account.value}, ${label(range)}`)
        yield* Console.log(UsageChart.buckets(range.granularity, UsageRange.fill(range, stored)))
        if (!byKey) return
        for (const key of keys) {
          yield* Console.log(`\nkey ${key.id} (${key.prefix}…, ${key.state})`)
          yield* Console.log(UsageChart.buckets(range.granularity, UsageRange.fill(range, stored.filter((b) => b.keyId === key.id))))
        }
      })
  ).pipe(
    Command.withDescription(
      "An account's requests per hour or day by outcome, with a bar per row (--by-key: per key too), or the busiest accounts (--top); counts are written by the servers every few seconds."
    )
  )
