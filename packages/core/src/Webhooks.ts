/**
 * Webhook administration: an account's endpoint (set, shown without its secret, removed), secret
 * rotation with a grace period, a message's attempts, and replay of one message or of every failed
 * message of an account since a time. A secret is answered once, when issued, and never again.
 *
 * A replay puts the message back in the queue for one more attempt with the same `webhook-id`; if
 * that attempt fails the message is failed again (no new schedule), as Svix's manual retries are.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AccountNotFound, InvalidCursor, InvalidWebhookUrl, MessageNotFound, type StoreUnavailable, WebhookNotFound } from "./Errors.js"
import type { Message, MessageStatus } from "./Message.js"
import { toMessageDelivery } from "./MessageQueue.js"
import { type MessagePosition, MessageStore, type StoredMessage } from "./MessageStore.js"
import { AccountStore } from "./AccountStore.js"
import { SecureRandom } from "./SecureRandom.js"
import { type WebhookAttempt, WebhookAttemptStore } from "./WebhookAttempt.js"
import { rotated, signingProblem, signingSecrets, type WebhookEndpoint, WebhookEndpointStore } from "./WebhookEndpoint.js"
import { SECRET_BYTES, secretFromBytes } from "./WebhookSignature.js"

/** What endpoint URLs are accepted, and how long a rotated secret still signs. */
export interface WebhooksOptions {
  /** Why a URL may not be an endpoint, or undefined when it may (the server checks addresses too). */
  readonly urlProblem: (url: string) => string | undefined
  /** How long a rotated-out secret keeps signing by default. */
  readonly rotationGraceMillis: number
}

/** Https only, an absolute URL: what the core can check without resolving names. */
export const httpsOnly = (url: string): string | undefined => {
  try {
    return new URL(url).protocol === "https:" ? undefined : "url must be an https URL"
  } catch {
    return "url must be an absolute URL"
  }
}

/** The webhooks service's defaults: HTTPS endpoints only, a rotated secret signs for 24 hours more. */
export const DEFAULT_OPTIONS: WebhooksOptions = { urlProblem: httpsOnly, rotationGraceMillis: 24 * 3600 * 1000 }

/** The most a rotation's grace can be: a week, as Svix allows. */
export const MAX_GRACE_MILLIS = 7 * 24 * 3600 * 1000

/** An endpoint as shown: never its secrets. */
export interface EndpointView {
  readonly accountId: string
  readonly url: string
  readonly createdAt: number
  readonly updatedAt: number
  readonly failingSince: number | null
  readonly disabledAt: number | null
  readonly disabledReason: string | null
  /** When the rotated-out secret stops signing, during a rotation. */
  readonly previousSecretExpiresAt: number | null
  /** Why deliveries cannot be signed (a signing secret does not open), or null when they can. */
  readonly secretError: string | null
}

/** An endpoint as its account sees it at `now`. */
export const view = (e: WebhookEndpoint, now: number): EndpointView => ({
  accountId: e.accountId,
  url: e.url,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
  failingSince: e.failingSince,
  disabledAt: e.disabledAt,
  disabledReason: e.disabledReason,
  previousSecretExpiresAt: signingSecrets(e, now).find((s) => s.expiresAt !== null)?.expiresAt ?? null,
  secretError: signingProblem(e, now) ?? null
})

/** A page of an account's messages, and the cursor of the next page when more may follow. */
export interface MessagePage {
  readonly messages: ReadonlyArray<StoredMessage>
  readonly next: string | undefined
}

/** The opaque cursor of a listing position: base64url of `createdAt.id`. */
export const encodeMessageCursor = (p: MessagePosition): string => Buffer.from(`${p.createdAt}.${p.id}`, "utf8").toString("base64url")

/** The position of a cursor `encodeMessageCursor` made; anything else is `InvalidCursor`. */
export const decodeMessageCursor = (cursor: string): Effect.Effect<MessagePosition, InvalidCursor> => {
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : ""
  const match = /^(\d{1,16})\.([A-Za-z0-9_]{1,100})$/.exec(text)
  return match === null || encodeMessageCursor({ createdAt: Number(match[1]), id: match[2]! }) !== cursor
    ? Effect.fail(new InvalidCursor({ reason: "not a cursor of this listing" }))
    : Effect.succeed({ createdAt: Number(match[1]), id: match[2]! })
}

/** An endpoint with the secret just issued: the only time a secret is answered. */
export interface IssuedEndpoint {
  readonly endpoint: EndpointView
  readonly secret: string
}

type Failure = StoreUnavailable

/** The webhooks service: set, read, rotate and remove an account's endpoint, list its attempts and replay messages. @category services */
export class Webhooks extends Context.Service<
  Webhooks,
  {
    /** Sets (or replaces, enabling it again) the account's endpoint with a new secret. */
    readonly setEndpoint: (accountId: string, url: string) => Effect.Effect<IssuedEndpoint, AccountNotFound | InvalidWebhookUrl | Failure>
    readonly getEndpoint: (accountId: string) => Effect.Effect<EndpointView, AccountNotFound | WebhookNotFound | Failure>
    readonly removeEndpoint: (accountId: string) => Effect.Effect<void, AccountNotFound | WebhookNotFound | Failure>
    /** A new current secret; the previous one keeps signing for `graceMillis` (default 24 h). */
    readonly rotateSecret: (
      accountId: string,
      graceMillis?: number
    ) => Effect.Effect<IssuedEndpoint, AccountNotFound | WebhookNotFound | Failure>
    /** One message, whichever account it is of. */
    readonly message: (messageId: string) => Effect.Effect<StoredMessage, MessageNotFound | Failure>
    readonly attempts: (messageId: string) => Effect.Effect<ReadonlyArray<WebhookAttempt>, MessageNotFound | Failure>
    /** Queues the message for one more attempt; a message still pending is left as it is. */
    readonly replay: (messageId: string) => Effect.Effect<Message, MessageNotFound | Failure>
    /** Replays every message of the account that failed at or after `since`: their ids. */
    readonly replayFailed: (accountId: string, since: number) => Effect.Effect<ReadonlyArray<string>, AccountNotFound | Failure>
    /** The account's messages (in `status` when given), oldest first, `limit` a page, from `cursor` when given. */
    readonly listMessages: (
      accountId: string,
      query: { readonly status: MessageStatus | undefined; readonly limit: number; readonly cursor: string | undefined }
    ) => Effect.Effect<MessagePage, AccountNotFound | InvalidCursor | Failure>
  }
>()("@petstore/core/Webhooks") {
  static readonly layer = (options: Partial<WebhooksOptions> = {}) =>
    Layer.effect(Webhooks, make({ ...DEFAULT_OPTIONS, ...options }))
}

/** Builds the webhooks service over the endpoint, attempt and message stores. @category constructors */
export const make = (options: WebhooksOptions) =>
  Effect.gen(function*() {
    const accounts = yield* AccountStore
    const endpoints = yield* WebhookEndpointStore
    const attemptLog = yield* WebhookAttemptStore
    const messages = yield* MessageStore
    const random = yield* SecureRandom

    const newSecret = Effect.map(random.bytes(SECRET_BYTES), secretFromBytes)
    const account = (id: string) =>
      Effect.flatMap(accounts.findAccount(id), Option.match({
        onNone: () => Effect.fail(new AccountNotFound({ id })),
        onSome: () => Effect.void
      }))
    const endpointOf = (accountId: string) =>
      Effect.andThen(
        account(accountId),
        Effect.flatMap(endpoints.find(accountId), Option.match({
          onNone: () => Effect.fail(new WebhookNotFound({ accountId })),
          onSome: Effect.succeed
        }))
      )
    const message = (id: string) =>
      Effect.flatMap(messages.find(id), Option.match({
        onNone: () => Effect.fail(new MessageNotFound({ id })),
        onSome: Effect.succeed
      }))
    const replayOne = (id: string) =>
      Effect.gen(function*() {
        const m = yield* message(id)
        if (m.status === "queued" || m.status === "processing") return m
        const now = yield* Clock.currentTimeMillis
        yield* messages.requeue(id, now)
        // The message as the replay left it (queued, its attempts as they were), not read back: a worker
        // may claim it at once, and the answer would then show that worker's `processing` (or its outcome).
        const queued: StoredMessage = { ...m, status: "queued", updatedAt: now, availableAt: now, leaseUntil: 0 }
        return queued
      })

    return Webhooks.of({
      setEndpoint: (accountId, url) =>
        Effect.gen(function*() {
          const problem = options.urlProblem(url)
          if (problem !== undefined) return yield* Effect.fail(new InvalidWebhookUrl({ reason: problem }))
          yield* account(accountId)
          const now = yield* Clock.currentTimeMillis
          const previous = yield* endpoints.find(accountId)
          const endpoint: WebhookEndpoint = {
            accountId,
            url,
            secrets: [{ secret: yield* newSecret, expiresAt: null }],
            createdAt: Option.match(previous, { onNone: () => now, onSome: (e) => e.createdAt }),
            updatedAt: now,
            failingSince: null,
            disabledAt: null,
            disabledReason: null
          }
          yield* endpoints.put(endpoint)
          return { endpoint: view(endpoint, now), secret: endpoint.secrets[0]!.secret }
        }),
      getEndpoint: (accountId) =>
        Effect.flatMap(endpointOf(accountId), (e) => Effect.map(Clock.currentTimeMillis, (now) => view(e, now))),
      removeEndpoint: (accountId) => Effect.flatMap(endpointOf(accountId), () => Effect.asVoid(endpoints.remove(accountId))),
      rotateSecret: (accountId, graceMillis) =>
        Effect.gen(function*() {
          const current = yield* endpointOf(accountId)
          const now = yield* Clock.currentTimeMillis
          const secret = yield* newSecret
          const grace = Math.min(Math.max(0, graceMillis ?? options.rotationGraceMillis), MAX_GRACE_MILLIS)
          const next = rotated(current, secret, now, grace)
          yield* endpoints.put(next)
          return { endpoint: view(next, now), secret }
        }),
      message,
      attempts: (messageId) => Effect.andThen(message(messageId), attemptLog.list(messageId)),
      replay: (messageId) => Effect.map(replayOne(messageId), toMessageDelivery),
      replayFailed: (accountId, since) =>
        Effect.gen(function*() {
          yield* account(accountId)
          // Every failed message of the account, whatever failed it (an answer, an unreadable secret, a
          // crash, the lease), read a page at a time; those that failed since `since` are replayed.
          const replayed: Array<string> = []
          let after: MessagePosition | undefined = undefined
          while (true) {
            const page: ReadonlyArray<StoredMessage> = yield* messages.listByAccount({ accountId, status: "failed", after, limit: 500 })
            for (const m of page) {
              if (m.updatedAt < since) continue
              yield* replayOne(m.id).pipe(Effect.catchTag("MessageNotFound", () => Effect.void))
              replayed.push(m.id)
            }
            if (page.length < 500) return replayed
            after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id }
          }
        }),
      listMessages: (accountId, { cursor, limit, status }) =>
        Effect.gen(function*() {
          yield* account(accountId)
          const after = cursor === undefined ? undefined : yield* decodeMessageCursor(cursor)
          // One more than the page, to know whether a next page exists.
          const found = yield* messages.listByAccount({ accountId, status, after, limit: limit + 1 })
          const page = found.slice(0, limit)
          const last = page.at(-1)
          return { messages: page, next: found.length > limit && last !== undefined ? encodeMessageCursor(last) : undefined }
        })
    })
  })
