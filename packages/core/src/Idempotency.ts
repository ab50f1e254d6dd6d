/**
 * Retry-safe creates: `POST /pets` and `POST /messages` under an `Idempotency-Key`. The first
 * request with a key is carried out and its answer kept (with what it created, in one transaction of
 * the store); a later request with the same key and fingerprint is answered the same again and
 * changes nothing; while the first is still being carried out, another is refused as in use; the
 * key with another fingerprint (another body, or the other operation) is refused as reused. Keys
 * are the account's own, and live `ttlMillis` (at least 24 hours), after which a key is new again.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { StoreUnavailable } from "./Errors.js"
import * as IdempotencyFingerprint from "./IdempotencyFingerprint.js"
import type { IdempotencyKey } from "./IdempotencyKey.js"
import {
  type Claim,
  type IdempotencyRecord,
  IdempotencyStore,
  type KeyedOperation,
  type KeyedRequest,
  petIdOf,
  recordKey,
  SWEEP_BATCH
} from "./IdempotencyStore.js"
import type { Message } from "./Message.js"
import { MessageQueue, queuedMessage, toMessage } from "./MessageQueue.js"
import { MessageStore } from "./MessageStore.js"
import type { NewPet, Pet } from "./Pet.js"
import { draftOf, PetRepository } from "./PetRepository.js"
import { randomId, SecureRandom } from "./SecureRandom.js"

/** The shortest retention of a key: 24 hours, as payment APIs keep theirs. */
export const MIN_TTL_MILLIS = 24 * 60 * 60 * 1000

/** How long keyed creates are remembered, and how often the expired ones are swept. */
export interface IdempotencyOptions {
  /** How long a key's answer is kept and replayed (at least `MIN_TTL_MILLIS`). */
  readonly ttlMillis: number
  /** How often at most expired records are swept (in batches of `SWEEP_BATCH`), started by a keyed create. */
  readonly sweepEveryMillis: number
}

/** The defaults: keys kept for the minimum of 24 hours, swept every hour. */
export const DEFAULT_OPTIONS: IdempotencyOptions = { ttlMillis: MIN_TTL_MILLIS, sweepEveryMillis: 60 * 60 * 1000 }

/** Another request with this key is still being carried out: retry after `retryAfterSeconds`. @category errors */
export class IdempotencyKeyInUse extends Data.TaggedError("IdempotencyKeyInUse")<{
  readonly key: string
  readonly retryAfterSeconds: number
}> {}

/** The key was used with another body or on another operation; it names that request only. @category errors */
export class IdempotencyKeyReused extends Data.TaggedError("IdempotencyKeyReused")<{
  readonly key: string
  readonly operation: KeyedOperation
}> {}

/** How long a request that found its key in use is asked to wait. */
export const IN_USE_RETRY_AFTER_SECONDS = 1

/** A keyed create's answer: the created value, and whether it is the replay of an earlier request's. */
export interface Keyed<A> {
  readonly value: A
  readonly replayed: boolean
}

/** What a keyed create can be refused with, besides the store being unreachable. */
export type KeyedRefusal = IdempotencyKeyInUse | IdempotencyKeyReused

/** Retry-safe creates: a create sent again with the same `Idempotency-Key` answers what the first one did. @category services */
export class Idempotency extends Context.Service<
  Idempotency,
  {
    /** `Pets.create` under `key` of `accountId`. */
    readonly createPet: (accountId: string, key: IdempotencyKey, input: NewPet) => Effect.Effect<Keyed<Pet>, KeyedRefusal | StoreUnavailable>
    /** `MessageQueue.submit` under `key` of `accountId`. */
    readonly submitMessage: (accountId: string, key: IdempotencyKey, text: string) => Effect.Effect<Keyed<Message>, KeyedRefusal | StoreUnavailable>
  }
>()("@petstore/core/Idempotency") {
  /** The service; the sweeps it starts end with the layer. */
  static readonly layer = (options: Partial<IdempotencyOptions> = {}) =>
    Layer.effect(Idempotency, make({ ...DEFAULT_OPTIONS, ...options }))
}

const lost = (what: string) => new StoreUnavailable({ cause: new Error(`the ${what} a kept answer names is missing`) })

/** Builds the idempotency service over the idempotency store. @category constructors */
export const make = (options: IdempotencyOptions) =>
  Effect.gen(function*() {
    const store = yield* IdempotencyStore
    const pets = yield* PetRepository
    const messages = yield* MessageStore
    const queue = yield* MessageQueue
    const random = yield* SecureRandom
    const ttlMillis = Math.max(MIN_TTL_MILLIS, options.ttlMillis)
    // Keys whose create this instance is carrying out: a second request for one is told at once
    // that it is in use. Across instances the store is the lock (the second waits, then replays).
    const inFlight = new Set<string>()

    // Removes expired records in batches until a batch comes back short; reads never answer an
    // expired record, so a late sweep changes nothing anyone can see.
    const sweepAll: Effect.Effect<void, StoreUnavailable> = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.flatMap(store.sweep(now, SWEEP_BATCH), (removed) => (removed >= SWEEP_BATCH ? sweepAll : Effect.void)))
    const sweep = sweepAll.pipe(
      Effect.catchCause((cause) => Effect.logWarning("idempotency sweep failed; it runs again later", cause))
    )
    // The sweep is started by a keyed create at most once per `sweepEveryMillis`, in the background:
    // no timer of its own, so an idle service (or a test that moves its clock) never wakes for it.
    const scope = yield* Effect.scope
    let lastSweep = Number.NEGATIVE_INFINITY
    /** The start of a sweep when one is due at `now` (then the next is due `sweepEveryMillis` later), else undefined. */
    const sweepIfDue = (now: number): Effect.Effect<void> | undefined => {
      if (now - lastSweep < options.sweepEveryMillis) return undefined
      lastSweep = now
      return Effect.asVoid(Effect.forkIn(sweep, scope))
    }

    const inUse = (key: string) => new IdempotencyKeyInUse({ key, retryAfterSeconds: IN_USE_RETRY_AFTER_SECONDS })

    /** The answer under a record: a replay of it when it is this request's, else the key is reused. */
    const replay = <A>(
      request: KeyedRequest,
      record: IdempotencyRecord,
      answer: (record: IdempotencyRecord) => Effect.Effect<A, StoreUnavailable>
    ): Effect.Effect<Keyed<A>, KeyedRefusal | StoreUnavailable> =>
      record.operation !== request.operation || record.fingerprint !== request.fingerprint
        ? Effect.fail(new IdempotencyKeyReused({ key: request.key, operation: record.operation }))
        : Effect.map(answer(record), (value) => ({ value, replayed: true }))

    /** A keyed create: the kept answer if there is one, else the claim of the key with the write. */
    const keyed = <A>(
      accountId: string,
      key: IdempotencyKey,
      operation: KeyedOperation,
      input: unknown,
      write: (request: KeyedRequest) => Effect.Effect<Claim<A>, StoreUnavailable>,
      answer: (record: IdempotencyRecord) => Effect.Effect<A, StoreUnavailable>
    ): Effect.Effect<Keyed<A>, KeyedRefusal | StoreUnavailable> =>
      // The fiber's clock, read when the create runs: one step, not a suspension and a read.
      Clock.clockWith((clock) => {
        const id = recordKey(accountId, key)
        if (inFlight.has(id)) return Effect.fail(inUse(key))
        const now = clock.currentTimeMillisUnsafe()
        const request: KeyedRequest = {
          accountId,
          key,
          operation,
          fingerprint: IdempotencyFingerprint.of(operation, input),
          now,
          expiresAt: now + ttlMillis
        }
        // No look-up first: the claim itself answers the key's record when it has one, so a first
        // request (the usual case) costs one write, batched with the others, and nothing more.
        inFlight.add(id)
        const sweeping = sweepIfDue(now)
        return (sweeping === undefined ? write(request) : Effect.andThen(sweeping, write(request))).pipe(
          Effect.ensuring(Effect.sync(() => inFlight.delete(id))),
          Effect.flatMap((claim): Effect.Effect<Keyed<A>, KeyedRefusal | StoreUnavailable> => {
            switch (claim._tag) {
              case "Created":
                return Effect.succeed({ value: claim.value, replayed: false })
              case "Completed":
                return replay(request, claim.record, answer)
              case "InProgress":
                return Effect.fail(inUse(key))
            }
          })
        )
      })

    const petOf = (record: IdempotencyRecord) =>
      Effect.flatMap(pets.findById(petIdOf(record)), Option.match({ onNone: () => Effect.fail(lost("pet")), onSome: Effect.succeed }))
    // A message's first answer is its submission: queued, whatever became of it since.
    const messageOf = (record: IdempotencyRecord) =>
      Effect.flatMap(messages.find(record.resourceId), Option.match({
        onNone: () => Effect.fail(lost("message")),
        onSome: (m) => Effect.succeed(toMessage({ ...m, status: "queued" }))
      }))

    return Idempotency.of({
      createPet: (accountId, key, input) => {
        const draft = draftOf(input)
        return keyed(accountId, key, "createPet", draft, (request) => store.insertPet(request, draft), petOf)
      },
      submitMessage: (accountId, key, text) =>
        keyed(
          accountId,
          key,
          "createMessage",
          { message: text },
          (request) =>
            Effect.flatMap(Effect.provideService(randomId("msg"), SecureRandom, random), (id) =>
              Effect.flatMap(
                store.insertMessage(request, queuedMessage(id, accountId, text, request.now)),
                (claim): Effect.Effect<Claim<Message>> =>
                  claim._tag === "Created"
                    ? Effect.as(queue.wake, { _tag: "Created", value: toMessage(claim.value) })
                    : Effect.succeed(claim)
              )),
          messageOf
        )
    })
  })
