/**
 * Storage of submitted messages: an outbox that the worker claims from with a lease, so a message
 * whose worker died is claimed again once the lease runs out (at-least-once processing).
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "./Errors.js"
import type { MessageStatus } from "./Message.js"

/** A message as stored. Times are epoch ms. */
export interface StoredMessage {
  readonly id: string
  readonly accountId: string
  readonly message: string
  readonly status: MessageStatus
  readonly createdAt: number
  readonly updatedAt: number
  /** Processing attempts started so far. */
  readonly attempts: number
  /** A queued message is not claimed before this instant (retry backoff). */
  readonly availableAt: number
  /** A processing message whose lease ran out may be claimed again. */
  readonly leaseUntil: number
  readonly lastError: string | null
}

/** Where a listing of an account's messages goes on: after this message (by `createdAt`, then `id`). */
export interface MessagePosition {
  readonly createdAt: number
  readonly id: string
}

/** Which of an account's messages to list: in `status` (any when undefined), after `after`, at most `limit`. */
export interface AccountMessagesQuery {
  readonly accountId: string
  readonly status: MessageStatus | undefined
  readonly after: MessagePosition | undefined
  readonly limit: number
}

/**
 * Which claim an outcome belongs to: the message and the lease its claim set. An outcome is written only
 * while that claim still holds the message (`processing`, leased until `leaseUntil`): once the lease ran
 * out and another worker claimed it, a late outcome of the earlier attempt changes nothing.
 */
export type Claim = Pick<StoredMessage, "id" | "leaseUntil">

/** Messages not yet delivered or failed, by status. */
export interface PendingCounts {
  readonly queued: number
  readonly processing: number
}

/** The port of the submitted messages, which each store implements. @category services */
export class MessageStore extends Context.Service<
  MessageStore,
  {
    /** Stores a new message; once this succeeds the message is acknowledged and must never be lost. */
    readonly insert: (message: StoredMessage) => Effect.Effect<void, StoreUnavailable>
    readonly find: (id: string) => Effect.Effect<Option.Option<StoredMessage>, StoreUnavailable>
    /**
     * Atomically takes the oldest message that is queued and available, or processing with an expired
     * lease, of an account not in `skipAccounts`: marks it processing, counts the attempt and leases it
     * until `now + leaseMillis`.
     */
    readonly claim: (
      now: number,
      leaseMillis: number,
      skipAccounts?: ReadonlyArray<string>
    ) => Effect.Effect<Option.Option<StoredMessage>, StoreUnavailable>
    /**
     * A claimed message handed back untried: queued again, claimable at once and in its place, its
     * attempt not counted. Only while the claim that leased it until `leaseUntil` still holds it.
     */
    readonly release: (id: string, leaseUntil: number) => Effect.Effect<void, StoreUnavailable>
    /** The claim's attempt succeeded: delivered. Only while the claim still holds the message. */
    readonly markDelivered: (claim: Claim, now: number) => Effect.Effect<void, StoreUnavailable>
    /** The claim's attempt failed: back to queued, not claimable before `availableAt`. Only while the claim still holds it. */
    readonly markRetry: (claim: Claim, now: number, availableAt: number, error: string) => Effect.Effect<void, StoreUnavailable>
    /** The claim's attempt failed for the last time: failed. Only while the claim still holds the message. */
    readonly markFailed: (claim: Claim, now: number, error: string) => Effect.Effect<void, StoreUnavailable>
    /**
     * A delivered or failed message queued again, claimable at once, keeping its attempts and `lastError`
     * (an operator's replay). A message that is queued or processing is left as it is.
     */
    readonly requeue: (id: string, now: number) => Effect.Effect<void, StoreUnavailable>
    /**
     * The account's messages of the query, oldest first (by `createdAt`, then `id` in the store's
     * order): paging on from the last one's position visits each once.
     */
    readonly listByAccount: (query: AccountMessagesQuery) => Effect.Effect<ReadonlyArray<StoredMessage>, StoreUnavailable>
    /** The earliest instant at which some message may become claimable, if any is pending. */
    readonly nextClaimAt: Effect.Effect<Option.Option<number>, StoreUnavailable>
    /** How many messages wait (queued) and are being processed now: the queue's depth, for metrics. */
    readonly pendingCounts: Effect.Effect<PendingCounts, StoreUnavailable>
  }
>()("@petstore/core/MessageStore") {
  static readonly layerMemory = Layer.sync(MessageStore, () => makeMemory())
}

/** A message `claim` may take at `now`. */
export const isClaimable = (m: StoredMessage, now: number): boolean =>
  (m.status === "queued" && m.availableAt <= now) || (m.status === "processing" && m.leaseUntil <= now)

/** The messages in process memory. @category constructors */
export const makeMemory = (): MessageStore["Service"] => {
  const messages = new Map<string, StoredMessage>()
  // Ids of queued and processing messages, in submission order.
  const pending = new Set<string>()
  const update = (id: string, patch: Partial<StoredMessage>) =>
    Effect.sync(() => {
      const m = messages.get(id)
      if (m === undefined) return
      const next = { ...m, ...patch }
      messages.set(id, next)
      if (next.status === "delivered" || next.status === "failed") pending.delete(id)
      // A replayed message (back to queued from failed or delivered) waits again, behind those already waiting.
      else if (!pending.has(id)) pending.add(id)
    })
  // An outcome of the claim that leased the message until `claim.leaseUntil`, while that claim still holds it.
  const updateClaimed = (claim: Claim, patch: Partial<StoredMessage>) =>
    Effect.suspend(() => {
      const m = messages.get(claim.id)
      return m?.status === "processing" && m.leaseUntil === claim.leaseUntil ? update(claim.id, patch) : Effect.void
    })
  return {
    insert: (message) =>
      Effect.sync(() => {
        messages.set(message.id, message)
        pending.add(message.id)
      }),
    find: (id) => Effect.sync(() => Option.fromNullishOr(messages.get(id))),
    claim: (now, leaseMillis, skipAccounts = []) =>
      Effect.sync(() => {
        for (const id of pending) {
          const m = messages.get(id)!
          if (!isClaimable(m, now) || skipAccounts.includes(m.accountId)) continue
          const claimed: StoredMessage = {
            ...m,
            status: "processing",
            attempts: m.attempts + 1,
            leaseUntil: now + leaseMillis,
            updatedAt: now
          }
          messages.set(id, claimed)
          return Option.some(claimed)
        }
        return Option.none()
      }),
    release: (id, leaseUntil) =>
      Effect.suspend(() => {
        const m = messages.get(id)
        return m?.status === "processing" && m.leaseUntil === leaseUntil
          ? update(id, { status: "queued", attempts: m.attempts - 1, leaseUntil: 0 })
          : Effect.void
      }),
    markDelivered: (claim, now) =>
      updateClaimed(claim, { status: "delivered", updatedAt: now, leaseUntil: 0, lastError: null }),
    markRetry: (claim, now, availableAt, error) =>
      updateClaimed(claim, { status: "queued", updatedAt: now, availableAt, leaseUntil: 0, lastError: error }),
    markFailed: (claim, now, error) =>
      updateClaimed(claim, { status: "failed", updatedAt: now, leaseUntil: 0, lastError: error }),
    requeue: (id, now) =>
      Effect.suspend(() => {
        const m = messages.get(id)
        return m?.status === "delivered" || m?.status === "failed"
          ? update(id, { status: "queued", updatedAt: now, availableAt: now, leaseUntil: 0 })
          : Effect.void
      }),
    listByAccount: ({ accountId, after, limit, status }) =>
      Effect.sync(() =>
        [...messages.values()]
          .filter((m) =>
            m.accountId === accountId && (status === undefined || m.status === status) &&
            (after === undefined || m.createdAt > after.createdAt || (m.createdAt === after.createdAt && m.id > after.id))
          )
          .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
      ),
    nextClaimAt: Effect.sync(() => {
      let next = Infinity
      for (const id of pending) {
        const m = messages.get(id)!
        next = Math.min(next, m.status === "queued" ? m.availableAt : m.leaseUntil)
      }
      return next === Infinity ? Option.none() : Option.some(next)
    }),
    pendingCounts: Effect.sync(() => {
      let queued = 0
      for (const id of pending) if (messages.get(id)!.status === "queued") queued++
      return { queued, processing: pending.size - queued }
    })
  }
}
