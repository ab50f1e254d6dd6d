/**
 * The `petstore` command line: `serve`, and account and key management through the core
 * `Accounts` service on the stores `Main.services` chooses. A full key is printed only by the
 * command that creates it; failures are one line on stderr and a non-zero exit code.
 *
 * @since 1.0.0
 */
import * as Argument from "effect/cli/Argument"
import * as CliConfig from "effect/cli/CliConfig"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import { Accounts, type Errors, type Plan, Usage, UsageRange, Webhooks, Layers } from "@petstore/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SchemaIssue from "effect/SchemaIssue"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as AdminApi from "@petstore/http-node/AdminApi"
import { CliFailure, configuration, describe, explained } from "./CommandFailure.js"
import type { ServerConfig } from "./ServerConfig.js"
import * as Main from "./Main.js"
import * as ServeCommand from "./ServeCommand.js"
import * as ServeHelp from "./ServeHelp.js"
import { VERSION } from "./Version.js"
import * as StoreAdmin from "./StoreAdmin.js"
import * as UsageChart from "./UsageChart.js"

export { CliFailure } from "./CommandFailure.js"

/** Where the commands get their services; `Main.services` unless a test or embedder says otherwise. */
export interface CliOptions {
  readonly services: (config: ServerConfig) => Main.ServicesLayer
  /** The accounts service alone for the account and key commands (default: from `services`). */
  readonly accounts?: ((config: ServerConfig) => Layer.Layer<Accounts.Accounts, unknown>) | undefined
  /** The webhook administration service for the webhook commands (default: `Main.webhookServices`). */
  readonly webhooks?: ((config: ServerConfig) => Layer.Layer<Webhooks.Webhooks, unknown>) | undefined
}

const IN_MEMORY_WARNING =
  "warning: the configured store is in memory, so nothing is kept: this account and its key are lost when the command exits. Configure a durable store, or use the admin API of a running server."
const EMPTY_STORE_WARNING =
  "warning: the store holds no accounts. With the in-memory store (no durable store configured) nothing is kept between commands, so no account or key created earlier can be found."

const storeUnavailable = (error: Errors.StoreUnavailable) =>
  new CliFailure({ message: `the store cannot be reached: ${describe(error.cause)}` })

const unknownAccount = (error: Errors.AccountNotFound) =>
  new CliFailure({ message: `unknown account ${JSON.stringify(error.id)}` })

const unknownKey = (error: Errors.KeyNotFound) => new CliFailure({ message: `unknown key ${JSON.stringify(error.id)}` })

// Only an active key can be rotated; the core does not say which of the other cases it was.
const noActiveKey = (error: Errors.KeyNotFound) =>
  new CliFailure({ message: `no active key ${JSON.stringify(error.id)} (unknown, revoked or expired)` })

// A key is rotated once: the failure names the key to rotate instead.
const alreadyRotated = (error: Errors.KeyAlreadyRotated) =>
  new CliFailure({
    message: `key ${JSON.stringify(error.id)} was already rotated: its successor is ${JSON.stringify(error.successorId)}; ` +
      `rotate ${JSON.stringify(error.successorId)} to replace it in turn`
  })

const iso = (ms: number | null): string => (ms === null ? "-" : new Date(ms).toISOString())

/** Label/value lines, the key last so it stands out; the key is the only secret ever printed. */
const printIssued = (lines: ReadonlyArray<readonly [string, string]>, key: Accounts.IssuedKey) =>
  Effect.andThen(
    Console.log([...lines, ["key id", key.id], ["key", Redacted.value(key.key)]].map(([l, v]) => `${l}: ${v}`).join("\n")),
    Console.error("Store the key now: it is shown only this once.")
  )

const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n")
}

/** @category constructors */
export const make = (options: CliOptions) => {
  /** The services for one command, opened for its duration; opening failures are one line. */
  const open = (conf: ServerConfig): Layer.Layer<Accounts.Accounts, CliFailure> =>
    Layers.mapError(
      options.accounts === undefined ? options.services(conf) : options.accounts(conf),
      (error) => new CliFailure({ message: `cannot open the store: ${describe(error)}` })
    )

  const withAccounts = <A, E>(f: (accounts: Accounts.Accounts["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(configuration, (conf) => Effect.flatMap(Accounts.Accounts, f).pipe(Effect.provide(open(conf))))

  /** Key commands need an account from an earlier command, which an in-memory store cannot have. */
  const warnIfEmpty = (accounts: Accounts.Accounts["Service"]) =>
    Effect.flatMap(accounts.countAccounts, (n) => (n === 0 ? Console.error(EMPTY_STORE_WARNING) : Effect.void))

  const serve = Command.make("serve", {}, () => ServeCommand.serve(options.services)).pipe(
    Command.withDescription("Run the HTTP server, configured by PETSTORE_* variables: `petstore serve --help` lists them.")
  )

  const createAccount = Command.make(
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

  const accountId = Flag.String("account").pipe(Flag.withDescription("The account's id (acc_...)."))
  const keyId = Argument.String("KEY_ID").pipe(Argument.withDescription("The key's id (key_...)."))

  const createKey = Command.make(
    "create",
    {
      account: accountId,
      expiresAt: Flag.String("expires-at").pipe(
        Flag.withDescription("When the key stops working, ISO 8601 (e.g. 2030-01-31T12:00:00Z); default never."),
        Flag.optional
      )
    },
    ({ account, expiresAt }) =>
      Effect.gen(function*() {
        const expires = Option.isNone(expiresAt) ? undefined : Date.parse(yield* checkExpiresAt(expiresAt.value))
        const key = yield* withAccounts((accounts) =>
          Effect.andThen(warnIfEmpty(accounts), accounts.issueKey(account, { expiresAt: expires })).pipe(
            Effect.catchTags({
              AccountNotFound: unknownAccount,
              InvalidExpiry: (e) =>
                new CliFailure({ message: `--expires-at ${new Date(e.expiresAt).toISOString()} is not in the future; a key must expire after it is issued` }),
              StoreUnavailable: storeUnavailable
            })
          )
        )
        yield* printIssued([["account", key.accountId], ["expires", key.expiresAt === null ? "never" : iso(key.expiresAt)]], key)
      })
  ).pipe(Command.withDescription("Issue a new key for an account; prints the key (shown only this once)."))

  const listKeys = Command.make("list", { account: accountId }, ({ account }) =>
    Effect.gen(function*() {
      const keys = yield* withAccounts((accounts) =>
        Effect.andThen(warnIfEmpty(accounts), accounts.listKeys(account)).pipe(
          Effect.catchTags({ AccountNotFound: unknownAccount, StoreUnavailable: storeUnavailable })
        )
      )
      yield* Console.log(table([
        ["ID", "PREFIX", "STATE", "CREATED", "EXPIRES", "REVOKED", "ROTATED TO"],
        ...keys.map((k) => [k.id, k.prefix, k.state, iso(k.createdAt), iso(k.expiresAt), iso(k.revokedAt), k.rotatedTo ?? "-"])
      ]))
    })).pipe(Command.withDescription("List an account's keys: metadata only, never the keys themselves."))

  const revokeKey = Command.make("revoke", { keyId }, ({ keyId }) =>
    Effect.gen(function*() {
      yield* withAccounts((accounts) =>
        Effect.andThen(warnIfEmpty(accounts), accounts.revoke(keyId)).pipe(
          Effect.catchTags({ KeyNotFound: unknownKey, StoreUnavailable: storeUnavailable })
        )
      )
      yield* Console.log(`revoked: ${keyId}`)
    })).pipe(Command.withDescription("Revoke a key; it is refused from now on."))

  const rotateKey = Command.make(
    "rotate",
    {
      keyId,
      graceSeconds: Flag.Int("grace-seconds").pipe(
        Flag.withDescription("How long the old key keeps working, in seconds (default 0, at most 30 days)."),
        Flag.withDefault(0)
      )
    },
    ({ graceSeconds, keyId }) =>
      Effect.gen(function*() {
        yield* checkGraceSeconds(graceSeconds)
        const key = yield* withAccounts((accounts) =>
          Effect.andThen(warnIfEmpty(accounts), accounts.rotate(keyId, { graceSeconds })).pipe(
            Effect.catchTags({ KeyNotFound: noActiveKey, KeyAlreadyRotated: alreadyRotated, StoreUnavailable: storeUnavailable })
          )
        )
        yield* printIssued([
          ["rotated", keyId],
          ["old key", graceSeconds === 0 ? "no longer accepted" : `accepted for at most ${graceSeconds} more seconds`],
          ["account", key.accountId]
        ], key)
      })
  ).pipe(Command.withDescription(
      "Replace a key with a new one; the old one keeps working for --grace-seconds. A key is rotated once: rotating it again is refused and names its successor."
    ))

  const withWebhooks = <A, E>(f: (webhooks: Webhooks.Webhooks["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(configuration, (conf) =>
      Effect.flatMap(Webhooks.Webhooks, f).pipe(
        Effect.provide(Layers.mapError(
          (options.webhooks ?? Main.webhookServices)(conf),
          (error) => new CliFailure({ message: `cannot open the store: ${describe(error)}` })
        ))
      ))

  type WebhookError =
    | Errors.AccountNotFound
    | Errors.WebhookNotFound
    | Errors.InvalidWebhookUrl
    | Errors.MessageNotFound
    | Errors.InvalidCursor
    | Errors.StoreUnavailable
  const webhookFailure = (e: WebhookError): CliFailure => {
    switch (e._tag) {
      case "AccountNotFound":
        return unknownAccount(e)
      case "WebhookNotFound":
        return new CliFailure({ message: `the account ${JSON.stringify(e.accountId)} has no webhook endpoint` })
      case "InvalidWebhookUrl":
        return new CliFailure({ message: `--url: ${e.reason.replace(/^url /, "")}` })
      case "MessageNotFound":
        return new CliFailure({ message: `unknown message ${JSON.stringify(e.id)}` })
      case "InvalidCursor":
        return new CliFailure({ message: "--cursor: not a cursor this command printed" })
      case "StoreUnavailable":
        return storeUnavailable(e)
    }
  }

  const endpointLines = (e: Webhooks.EndpointView): ReadonlyArray<readonly [string, string]> => [
    ["account", e.accountId],
    ["url", e.url],
    ["failing since", iso(e.failingSince)],
    ["disabled", e.disabledAt === null ? "no" : `since ${iso(e.disabledAt)}: ${e.disabledReason ?? ""}`],
    ...(e.previousSecretExpiresAt === null ? [] : [["previous secret signs until", iso(e.previousSecretExpiresAt)] as const]),
    ...(e.secretError === null ? [] : [["secret error", e.secretError] as const])
  ]
  const printLines = (lines: ReadonlyArray<readonly [string, string]>) => Console.log(lines.map(([l, v]) => `${l}: ${v}`).join("\n"))
  /** The secret last, then the reminder; the only time a secret is printed. */
  const printSecret = ({ endpoint, secret }: Webhooks.IssuedEndpoint) =>
    Effect.andThen(
      printLines([...endpointLines(endpoint), ["secret", secret]]),
      Console.error("Store the signing secret now: it is shown only this once.")
    )
  const messageId = Argument.String("MESSAGE_ID").pipe(Argument.withDescription("The message's id (msg_...)."))

  const setWebhook = Command.make(
    "set",
    { account: accountId, url: Flag.String("url").pipe(Flag.withDescription("Where messages are POSTed (https).")) },
    ({ account, url }) =>
      Effect.flatMap(withWebhooks((w) => w.setEndpoint(account, url).pipe(Effect.mapError(webhookFailure))), printSecret)
  ).pipe(Command.withDescription("Set an account's webhook endpoint (enabling it again); prints its signing secret, shown only this once."))

  const showWebhook = Command.make("show", { account: accountId }, ({ account }) =>
    Effect.flatMap(withWebhooks((w) => w.getEndpoint(account).pipe(Effect.mapError(webhookFailure))), (e) => printLines(endpointLines(e)))
  ).pipe(Command.withDescription("Show an account's webhook endpoint, never its secret."))

  const removeWebhook = Command.make("remove", { account: accountId }, ({ account }) =>
    Effect.andThen(
      withWebhooks((w) => w.removeEndpoint(account).pipe(Effect.mapError(webhookFailure))),
      Console.log(`removed the webhook endpoint of ${account}`)
    )
  ).pipe(Command.withDescription("Remove an account's webhook endpoint; its messages are then recorded only."))

  const rotateWebhookSecret = Command.make(
    "rotate-secret",
    {
      account: accountId,
      graceSeconds: Flag.Int("grace-seconds").pipe(
        Flag.withDescription("How long the previous secret keeps signing, in seconds (default 86400, at most 7 days)."),
        Flag.optional
      )
    },
    ({ account, graceSeconds }) =>
      Effect.gen(function*() {
        const grace = Option.isNone(graceSeconds) ? undefined : yield* checkSecretGrace(graceSeconds.value)
        const issued = yield* withWebhooks((w) =>
          w.rotateSecret(account, grace === undefined ? undefined : grace * 1000).pipe(Effect.mapError(webhookFailure))
        )
        yield* printSecret(issued)
      })
  ).pipe(Command.withDescription("Issue a new signing secret; the previous one keeps signing for --grace-seconds."))

  const listAttempts = Command.make("attempts", { messageId }, ({ messageId }) =>
    Effect.flatMap(withWebhooks((w) => w.attempts(messageId).pipe(Effect.mapError(webhookFailure))), (attempts) =>
      Console.log(table([
        ["ATTEMPT", "STARTED", "DURATION MS", "STATUS", "ERROR"],
        ...attempts.map((a) => [String(a.attempt), iso(a.startedAt), String(a.durationMillis), a.statusCode === null ? "-" : String(a.statusCode), a.error ?? "-"])
      ])))
  ).pipe(Command.withDescription("List a message's delivery attempts."))

  const listMessages = Command.make("messages", {
    account: accountId,
    status: Flag.Literals("status", ["queued", "processing", "delivered", "failed"]).pipe(
      Flag.withDescription("Only the messages in this status (failed: those to look into or replay)."),
      Flag.optional
    ),
    limit: Flag.Int("limit").pipe(Flag.withDescription("Messages a page at most (1 to 100, default 20)."), Flag.optional),
    cursor: Flag.String("cursor").pipe(Flag.withDescription("Where the page starts: the cursor the previous page printed."), Flag.optional)
  }, ({ account, cursor, limit, status }) =>
    Effect.gen(function*() {
      const size = Option.getOrElse(limit, () => 20)
      if (!Number.isInteger(size) || size < 1 || size > 100) return yield* new CliFailure({ message: "--limit must be an integer from 1 to 100" })
      const page = yield* withWebhooks((w) =>
        w.listMessages(account, { status: Option.getOrUndefined(status), limit: size, cursor: Option.getOrUndefined(cursor) }).pipe(
          Effect.mapError(webhookFailure)
        )
      )
      yield* Console.log(table([
        ["ID", "STATUS", "ATTEMPTS", "CREATED", "UPDATED", "LAST ERROR"],
        ...page.messages.map((m) => [m.id, m.status, String(m.attempts), iso(m.createdAt), iso(m.updatedAt), m.lastError ?? "-"])
      ]))
      if (page.next !== undefined) yield* Console.log(`next page: --cursor ${page.next}`)
    })
  ).pipe(Command.withDescription("List an account's messages, oldest first, a page at a time (--status failed: its failures)."))

  const replayMessage = Command.make("replay", {
    messageId: messageId.pipe(Argument.optional),
    account: accountId.pipe(Flag.optional),
    since: Flag.String("since").pipe(Flag.withDescription("With --account: replay every message that failed since this time (ISO 8601)."), Flag.optional)
  }, ({ account, messageId, since }) =>
    Effect.gen(function*() {
      if (Option.isSome(messageId) && Option.isNone(account) && Option.isNone(since)) {
        const m = yield* withWebhooks((w) => w.replay(messageId.value).pipe(Effect.mapError(webhookFailure)))
        return yield* Console.log(`replaying: ${m.id} (${m.status})`)
      }
      if (Option.isNone(messageId) && Option.isSome(account) && Option.isSome(since)) {
        const at = Date.parse(yield* checkSince(since.value))
        const ids = yield* withWebhooks((w) => w.replayFailed(account.value, at).pipe(Effect.mapError(webhookFailure)))
        return yield* Console.log(ids.length === 0 ? "no failed message to replay" : ids.map((id) => `replaying: ${id}`).join("\n"))
      }
      return yield* new CliFailure({ message: "give a MESSAGE_ID, or --account and --since (not both)" })
    })
  ).pipe(Command.withDescription("Deliver a message again (same webhook-id), or every failed message of --account since --since."))

  const migrate = Command.make("migrate", {
    check: Flag.Boolean("check").pipe(
      Flag.withDescription("Apply nothing: list the migrations pending and exit 1 if there are any (for deploy pipelines)."),
      Flag.withDefault(false)
    )
  }, ({ check }) =>
    Effect.flatMap(configuration, (conf) =>
      check
        ? StoreAdmin.pendingMigrations(conf).pipe(
          Effect.mapError((error) => new CliFailure({ message: error.message })),
          Effect.flatMap(({ pending, summary }) =>
            Effect.andThen(
              Console.log([summary, ...pending.map((m) => `pending: ${m}`)].join("\n")),
              pending.length === 0 ? Effect.void : Effect.fail(new CliFailure({ message: "migrations are pending: run petstore migrate" }))
            )
          )
        )
        : StoreAdmin.migrate(conf).pipe(
          Effect.flatMap((lines) => Console.log(lines.join("\n"))),
          Effect.mapError((error) => new CliFailure({ message: error.message }))
        ))).pipe(
      Command.withDescription(
        "Bring the configured store's schema up to date (the server also does it at start); safe to run while other instances serve. --check applies nothing."
      )
    )

  const importSqlite = Command.make(
    "import-sqlite",
    { file: Argument.File("SQLITE_FILE", { mustExist: true }).pipe(Argument.withDescription("The SQLite file to copy from.")) },
    ({ file }) =>
      Effect.flatMap(configuration, (conf) =>
        StoreAdmin.importSqlite(conf, file).pipe(
          Effect.flatMap((lines) => Console.log(lines.join("\n"))),
          Effect.mapError((error) => new CliFailure({ message: error.message }))
        ))
  ).pipe(
    Command.withDescription(
      "Copy everything a SQLite file holds (accounts, keys, pets with their ids, messages, limiter state) into the empty PostgreSQL database PETSTORE_DATABASE names."
    )
  )

  /** The usage service and the accounts on the configured store; a failure when the server counts none. */
  const withUsage = <A, E>(f: (usage: Usage.Usage["Service"], accounts: Accounts.Accounts["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(configuration, (conf) =>
      Effect.gen(function*() {
        const usage = yield* Effect.serviceOption(Usage.Usage)
        if (Option.isNone(usage)) {
          return yield* new CliFailure({ message: "usage is not counted (PETSTORE_USAGE=off, or a store without usage counts)" })
        }
        return yield* f(usage.value, yield* Accounts.Accounts)
      }).pipe(
        Effect.provide(Layers.mapError(options.services(conf), (error) => new CliFailure({ message: `cannot open the store: ${describe(error)}` })))
      ))

  const usage = Command.make(
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

  const petstore = Command.make("petstore").pipe(
    Command.withDescription("Pet Store Service"),
    Command.withSubcommands([
      serve,
      migrate,
      importSqlite,
      usage,
      Command.make("accounts").pipe(Command.withDescription("Manage accounts."), Command.withSubcommands([createAccount])),
      Command.make("keys").pipe(
        Command.withDescription("Manage API keys."),
        Command.withSubcommands([createKey, listKeys, revokeKey, rotateKey])
      ),
      Command.make("webhooks").pipe(
        Command.withDescription("Manage webhook endpoints and deliveries (see docs/webhooks.md)."),
        Command.withSubcommands([setWebhook, showWebhook, removeWebhook, rotateWebhookSecret, listAttempts, listMessages, replayMessage])
      )
    ])
  )

  const run = Command.runWith(petstore, { version: VERSION, renderErrors: false })

  /**
   * Runs the command line with `argv` (as `process.argv`). Every failure has been explained on
   * stderr by the time the effect fails, so the caller only turns failure into an exit code.
   */
  return (argv: ReadonlyArray<string>) => {
    if (ServeHelp.asksHelp(argv)) return Console.log(ServeHelp.text())
    // The version alone, as scripts read it (Effect's command line would print `petstore v1.0.0`).
    if (argv.length === 3 && argv[2] === "--version") return Console.log(VERSION)
    const flag = ServeHelp.takeLogLevel(argv)
    if (Result.isFailure(flag)) return explained(Effect.fail(new CliFailure({ message: flag.failure })))
    return ServeHelp.withLogLevel(run(flag.success.argv.slice(2)), flag.success.level).pipe(
      // --help and --version only: the other flags Effect's command line gives every command
      // (--completions, --wizard, its own --log-level) stay out of each command's help.
      Effect.provide(CliConfig.layer({ builtIns: [GlobalFlag.Help, GlobalFlag.Version] })),
      Effect.catchCause((cause): Effect.Effect<never, CliFailure | CliError.CliError> => {
        const failure = Cause.findErrorOption(cause)
        // What the command line could not parse: one line on stderr, as every other failure.
        if (Option.isSome(failure) && CliError.isCliError(failure.value)) {
          const error = failure.value
          // Help asked for (`--help`) was printed; help shown for an error comes with that error.
          const reasons = error._tag === "ShowHelp" ? error.errors : [error]
          if (reasons.length === 0) return Effect.fail(error)
          return Effect.andThen(
            Console.error(`petstore: ${reasons.map((reason) => reason.message.split("\n")[0]).join("; ")}`),
            Effect.fail(error)
          )
        }
        return explained(Effect.failCause(cause))
      })
    )
  }
}

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

/**
 * Checks a flag with the admin API's rule for the same payload field, so both ways of managing
 * keys accept the same values. (The group types its endpoints as one union, hence the cast.)
 */
const adminRule = <A>(
  endpoint: "createKey" | "rotateKey" | "rotateWebhookSecret" | "replayFailedMessages",
  field: string,
  flag: string
) => {
  const payload = AdminApi.AdminGroup.endpoints[endpoint].payload.values().next()
  if (payload.done) throw new Error(`the admin endpoint ${endpoint} declares no payload`)
  const decode = Schema.decodeUnknownResult(payload.value.schemas[0] as Schema.Codec<unknown, unknown, never, never>)
  return (value: A): Effect.Effect<A, CliFailure> =>
    Result.match(decode({ [field]: value }), {
      onFailure: (error) => {
        const issue = formatIssues(error.issue).issues[0]
        return Effect.fail(new CliFailure({ message: `${flag} ${issue?.message ?? "is invalid"}, got ${JSON.stringify(value)}` }))
      },
      onSuccess: () => Effect.succeed(value)
    })
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const checkExpiresAt = adminRule<string>("createKey", "expiresAt", "--expires-at")
const checkGraceSeconds = adminRule<number>("rotateKey", "graceSeconds", "--grace-seconds")
const checkSince = adminRule<string>("replayFailedMessages", "since", "--since")
const checkSecretGrace = adminRule<number>("rotateWebhookSecret", "graceSeconds", "--grace-seconds")

/** The `petstore` command line on the stores `Main.services` chooses. */
export const cli = make({ services: Main.services, accounts: Main.accountServices })
