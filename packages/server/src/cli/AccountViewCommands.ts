/**
 * `petstore accounts list`, `show` and `update`: the accounts as the admin API answers them, and
 * their name, plan, limits and status changed (a suspended account's keys are refused with 403).
 */
import { AccountListing, type AccountStore, type Plan } from "@petstore/core"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CliFailure } from "../CommandFailure.js"
import type { CommandServices } from "./CommandServices.js"
import { storeUnavailable, unknownAccount } from "./Failures.js"
import { iso, printLines, table } from "./Output.js"

/** The admin API's own rules for a name and a search text (code points, no NUL, no lone surrogate). */
const isAccountName = Schema.is(AccountListing.AccountName)
const isAccountSearch = Schema.is(AccountListing.AccountSearch)

const ACCOUNT_ID = Argument.String("ACCOUNT_ID").pipe(Argument.withDescription("The account's id (acc_...)."))
const plans = ["free", "pro", "business", "enterprise"] as const
const statuses = ["active", "suspended"] as const

const limitsText = (a: AccountStore.Account) => `${a.limits.perMinute}/min ${a.limits.perDay}/day`

const listAccounts = ({ withAccounts }: CommandServices) =>
  Command.make(
    "list",
    {
      plan: Flag.Literals("plan", plans).pipe(Flag.withDescription("Only the accounts on this plan."), Flag.optional),
      status: Flag.Literals("status", statuses).pipe(Flag.withDescription("Only the accounts in this status."), Flag.optional),
      q: Flag.String("q").pipe(Flag.withDescription("Only the accounts whose id starts with, or whose name contains, this text."), Flag.optional),
      limit: Flag.Int("limit").pipe(Flag.withDescription("How many accounts at most, newest first (1..100, default 20)."), Flag.optional)
    },
    ({ limit, plan, q, status }) =>
      Effect.gen(function*() {
        const size = Option.getOrElse(limit, () => 20)
        if (!(size >= 1 && size <= 100)) return yield* new CliFailure({ message: "--limit must be between 1 and 100" })
        if (Option.isSome(q) && !isAccountSearch(q.value)) {
          return yield* new CliFailure({ message: "--q must be 1 to 200 characters, with no NUL character" })
        }
        const page = yield* withAccounts((accounts) =>
          accounts.list({ plan: Option.getOrUndefined(plan), status: Option.getOrUndefined(status), q: Option.getOrUndefined(q), limit: size }).pipe(
            Effect.catchTags({ InvalidCursor: (e) => new CliFailure({ message: e.reason }), StoreUnavailable: storeUnavailable })
          )
        )
        yield* Console.log(table([
          ["ID", "NAME", "PLAN", "LIMITS", "STATUS", "CREATED"],
          ...page.accounts.map((a) => [a.id, a.name ?? "-", a.plan, limitsText(a), a.status, iso(a.createdAt)])
        ]))
        if (page.next !== undefined) yield* Console.log(`(more accounts follow; the admin API pages through all of them)`)
      })
  ).pipe(Command.withDescription("List accounts, newest first, filtered by plan, status or text."))

const printAccount = (a: AccountStore.Account, keys: number, webhook?: boolean) =>
  printLines([
    ["account", a.id],
    ["name", a.name ?? "-"],
    ["plan", `${a.plan} (${a.limits.perMinute} per minute, ${a.limits.perDay} per day)`],
    ["status", a.status],
    ["created", iso(a.createdAt)],
    ["keys", String(keys)],
    ...(webhook === undefined ? [] : [["webhook", webhook ? "set" : "none"] as const])
  ])

const showAccount = ({ withAccounts, withWebhooks }: CommandServices) =>
  Command.make("show", { account: ACCOUNT_ID }, ({ account }) =>
    Effect.gen(function*() {
      const [found, keys] = yield* withAccounts((accounts) =>
        Effect.all([accounts.findAccount(account), accounts.listKeys(account)]).pipe(
          Effect.catchTags({ AccountNotFound: unknownAccount, StoreUnavailable: storeUnavailable })
        )
      )
      const webhook = yield* withWebhooks((webhooks) =>
        webhooks.getEndpoint(account).pipe(
          Effect.as(true),
          Effect.catchTags({
            AccountNotFound: () => Effect.succeed(false),
            WebhookNotFound: () => Effect.succeed(false),
            StoreUnavailable: storeUnavailable
          })
        )
      )
      yield* printAccount(found, keys.length, webhook)
    })).pipe(Command.withDescription("Show an account: name, plan and limits, status, creation, number of keys (revoked ones included), whether a webhook endpoint is set."))

/** The update the flags ask for, or why they cannot be used together. */
const updateOf = (flags: {
  readonly name: Option.Option<string>
  readonly clearName: boolean
  readonly plan: Option.Option<Plan.Plan>
  readonly perMinute: Option.Option<number>
  readonly perDay: Option.Option<number>
  readonly status: Option.Option<AccountListing.AccountStatus>
}) => {
  if (Option.isSome(flags.name) && flags.clearName) return Effect.fail(new CliFailure({ message: "--name and --clear-name cannot be used together" }))
  if (Option.isSome(flags.name) && !isAccountName(flags.name.value)) {
    return Effect.fail(new CliFailure({ message: "--name must be 1 to 200 characters, with no NUL character" }))
  }
  if (Option.isSome(flags.perMinute) !== Option.isSome(flags.perDay)) {
    return Effect.fail(new CliFailure({ message: "--per-minute and --per-day go together" }))
  }
  const limits = Option.isSome(flags.perMinute) && Option.isSome(flags.perDay)
    ? { perMinute: flags.perMinute.value, perDay: flags.perDay.value }
    : undefined
  return Effect.succeed({
    name: flags.clearName ? null : Option.getOrUndefined(flags.name),
    plan: Option.getOrUndefined(flags.plan),
    limits,
    status: Option.getOrUndefined(flags.status)
  })
}

const updateAccount = ({ withAccounts }: CommandServices) =>
  Command.make(
    "update",
    {
      account: ACCOUNT_ID,
      name: Flag.String("name").pipe(Flag.withDescription("A new name (1..200 characters)."), Flag.optional),
      clearName: Flag.Boolean("clear-name").pipe(Flag.withDescription("Remove the account's name."), Flag.withDefault(false)),
      plan: Flag.Literals("plan", plans).pipe(Flag.withDescription("A new plan; enterprise needs --per-minute and --per-day."), Flag.optional),
      perMinute: Flag.Int("per-minute").pipe(Flag.withDescription("Enterprise only: requests per minute."), Flag.optional),
      perDay: Flag.Int("per-day").pipe(Flag.withDescription("Enterprise only: requests per UTC day."), Flag.optional),
      status: Flag.Literals("status", statuses).pipe(
        Flag.withDescription("suspended: the account's keys are refused (403) until it is active again."),
        Flag.optional
      )
    },
    ({ account, ...flags }) =>
      Effect.gen(function*() {
        const update = yield* updateOf(flags)
        const [updated, keys] = yield* withAccounts((accounts) =>
          accounts.update(account, update).pipe(
            Effect.flatMap((a) => Effect.map(accounts.listKeys(a.id), (ks) => [a, ks.length] as const)),
            Effect.catchTags({
              AccountNotFound: unknownAccount,
              InvalidPlan: (e) => new CliFailure({ message: `invalid plan: ${e.reason}` }),
              StoreUnavailable: storeUnavailable
            })
          )
        )
        yield* printAccount(updated, keys)
      })
  ).pipe(Command.withDescription("Change an account's name, plan (and enterprise limits) or status (active, suspended)."))

/** The commands that list, show and update accounts. */
export const accountViewCommands = (services: CommandServices) => [
  listAccounts(services),
  showAccount(services),
  updateAccount(services)
] as const
