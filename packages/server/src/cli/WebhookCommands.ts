/**
 * `petstore webhooks …`: an account's endpoint (set, show, remove, rotate its signing secret) and
 * its messages (list them, their attempts, replay them).
 */
import type { Errors, Webhooks } from "@petstore/core"
import * as Command from "effect/cli/Command"
import * as Argument from "effect/cli/Argument"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliFailure } from "../CommandFailure.js"
import { checkSecretGrace, checkSince } from "./AdminRules.js"
import { accountId, messageId } from "./Arguments.js"
import type { CommandServices } from "./CommandServices.js"
import { storeUnavailable, unknownAccount } from "./Failures.js"
import { iso, printLines, table } from "./Output.js"

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

/** The secret last, then the reminder; the only time a secret is printed. */
const printSecret = ({ endpoint, secret }: Webhooks.IssuedEndpoint) =>
  Effect.andThen(
    printLines([...endpointLines(endpoint), ["secret", secret]]),
    Console.error("Store the signing secret now: it is shown only this once.")
  )

const setWebhook = ({ withWebhooks }: CommandServices) =>
  Command.make(
    "set",
    { account: accountId, url: Flag.String("url").pipe(Flag.withDescription("Where messages are POSTed (https).")) },
    ({ account, url }) =>
      Effect.flatMap(withWebhooks((w) => w.setEndpoint(account, url).pipe(Effect.mapError(webhookFailure))), printSecret)
  ).pipe(Command.withDescription("Set an account's webhook endpoint (enabling it again); prints its signing secret, shown only this once."))

const showWebhook = ({ withWebhooks }: CommandServices) =>
  Command.make("show", { account: accountId }, ({ account }) =>
    Effect.flatMap(withWebhooks((w) => w.getEndpoint(account).pipe(Effect.mapError(webhookFailure))), (e) => printLines(endpointLines(e)))
  ).pipe(Command.withDescription("Show an account's webhook endpoint, never its secret."))

const removeWebhook = ({ withWebhooks }: CommandServices) =>
  Command.make("remove", { account: accountId }, ({ account }) =>
    Effect.andThen(
      withWebhooks((w) => w.removeEndpoint(account).pipe(Effect.mapError(webhookFailure))),
      Console.log(`removed the webhook endpoint of ${account}`)
    )
  ).pipe(Command.withDescription("Remove an account's webhook endpoint; its messages are then recorded only."))

const rotateWebhookSecret = ({ withWebhooks }: CommandServices) =>
  Command.make(
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

const listAttempts = ({ withWebhooks }: CommandServices) =>
  Command.make("attempts", { messageId }, ({ messageId }) =>
    Effect.flatMap(withWebhooks((w) => w.attempts(messageId).pipe(Effect.mapError(webhookFailure))), (attempts) =>
      Console.log(table([
        ["ATTEMPT", "STARTED", "DURATION MS", "STATUS", "ERROR"],
        ...attempts.map((a) => [String(a.attempt), iso(a.startedAt), String(a.durationMillis), a.statusCode === null ? "-" : String(a.statusCode), a.error ?? "-"])
      ])))
  ).pipe(Command.withDescription("List a message's delivery attempts."))

const listMessages = ({ withWebhooks }: CommandServices) =>
  Command.make("messages", {
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

const replayMessage = ({ withWebhooks }: CommandServices) =>
  Command.make("replay", {
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

export const webhooks = (services: CommandServices) =>
  Command.make("webhooks").pipe(
    Command.withDescription("Manage webhook endpoints and deliveries (see docs/webhooks.md)."),
    Command.withSubcommands([
      setWebhook(services),
      showWebhook(services),
      removeWebhook(services),
      rotateWebhookSecret(services),
      listAttempts(services),
      listMessages(services),
      replayMessage(services)
    ])
  )
