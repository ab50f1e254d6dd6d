/**
 * Laws of retry-safe creates (`Idempotency-Key`) that every `IdempotencyStore`, with the pet and
 * message stores it writes beside, obeys through the core's `Idempotency` service: a replay answers
 * what the first request answered and creates nothing; the key with another body or operation is
 * refused; concurrent requests with one key create once; an expired key is new again.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import { describe, expect } from "@effect/vitest"
import { Cause, Clock, Effect, Result, Exit, Layer, Option } from "effect"
import {
  Idempotency,
  type IdempotencyKey,
  IdempotencyStore,
  MessageProcessor,
  MessageQueue,
  MessageStore,
  type Pet,
  PetRepository,
  SecureRandom
} from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, numRuns, petName, property, text } from "./internal/support.js"

/** The stores the laws need, built afresh (empty) for each run. */
export type IdempotencyLawStores = IdempotencyStore.IdempotencyStore | PetRepository.PetRepository | MessageStore.MessageStore

const TTL = Idempotency.MIN_TTL_MILLIS
/** When each run starts (the clock is set before the services are built, so no timer has to catch up). */
const START = 1_800_000_000_000

/** Keys as clients choose them: printable ASCII, 1 to 255 characters. */
export const idempotencyKey: fc.Arbitrary<IdempotencyKey.IdempotencyKey> = fc.oneof(
  fc.uuid(),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 255 })
).map((k) => k as IdempotencyKey.IdempotencyKey)

const account = base62(22).map((s) => `acc_${s}`)

const newPet: fc.Arbitrary<Pet.NewPet> = fc.record({
  name: petName,
  categoryId: fc.integer({ min: 1, max: 1_000_000 }).map((n) => n as Pet.CategoryId),
  status: fc.constantFrom(undefined, "available" as const, "pending" as const, "sold" as const)
}).map(({ status, ...rest }) => (status === undefined ? rest : { ...rest, status }))

const allPets = (repo: PetRepository.PetRepository["Service"]) => repo.listAfter({ afterId: 0, status: Option.none(), limit: 100 })

/** What the laws of this suite share: its parameters and the helpers over its layer. */
const suiteOf = <E>(
  name: string,
  stores: Layer.Layer<IdempotencyLawStores, E>,
  options?: LawSuiteOptions
) => {
  // The worker looks at the queue only when woken: the laws move the clock by days, and a worker
  // polling every second would wake for each of them.
  const services = Idempotency.Idempotency.layer().pipe(
    Layer.provideMerge(MessageQueue.MessageQueue.layer({ pollMillis: 100 * TTL })),
    Layer.provideMerge(stores),
    Layer.provide(Layer.merge(MessageProcessor.MessageProcessor.layerRecordOnly, SecureRandom.SecureRandom.Live))
  )
  /**
   * Runs `f` with the services, under a clock that `advance` moves forward at once: the laws jump
   * by days, and a test clock would run every timer of the stores on the way (pool checks,
   * the sweep), which tells nothing here. The sweep never runs on its own, so expiry holds without it.
   */
  const withServices = <A, E2>(
    f: (
      idempotency: Idempotency.Idempotency["Service"],
      repo: PetRepository.PetRepository["Service"],
      store: IdempotencyStore.IdempotencyStore["Service"],
      messages: MessageStore.MessageStore["Service"],
      advance: (millis: number) => Effect.Effect<void>
    ) => Effect.Effect<A, E2>
  ) =>
    Effect.andThen(TestClock.setTime(START), Effect.provide(
      Effect.flatMap(
        Effect.all([Idempotency.Idempotency, PetRepository.PetRepository, IdempotencyStore.IdempotencyStore, MessageStore.MessageStore, Clock.Clock]),
        ([idempotency, repo, store, messages, base]) => {
          let offset = 0
          const clock: Clock.Clock = {
            currentTimeMillisUnsafe: () => base.currentTimeMillisUnsafe() + offset,
            currentTimeMillis: Effect.sync(() => base.currentTimeMillisUnsafe() + offset),
            currentTimeNanosUnsafe: () => base.currentTimeNanosUnsafe() + BigInt(offset) * 1_000_000n,
            currentTimeNanos: Effect.sync(() => base.currentTimeNanosUnsafe() + BigInt(offset) * 1_000_000n),
            monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
            monotonicTimeNanos: base.monotonicTimeNanos,
            sleep: (duration) => base.sleep(duration)
          }
          const advance = (millis: number) => Effect.sync(() => void (offset += millis))
          return Effect.provideService(f(idempotency, repo, store, messages, advance), Clock.Clock, clock)
        }
      ),
      services
    ))
  const runs = numRuns(options, 15)
  return { name, stores, options, services, withServices, runs }
}

type Suite<E> = ReturnType<typeof suiteOf<E>>

/** A key used again: the first answer replayed, or refused as reused. */
const replayLaws = <E>({ withServices, runs }: Suite<E>): void => {
  property(
    "a replay answers what the first request answered, says it is a replay, and creates nothing",
    [account, idempotencyKey, newPet, fc.integer({ min: 1, max: 4 })],
    ([accountId, key, pet, retries]) =>
      withServices((idempotency, repo, _store, _messages, advance) =>
        Effect.gen(function*() {
          const first = yield* idempotency.createPet(accountId, key, pet)
          expect(first.replayed).toBe(false)
          for (let i = 0; i < retries; i++) {
            yield* advance(TTL / 10)
            expect(yield* idempotency.createPet(accountId, key, pet)).toStrictEqual({ value: first.value, replayed: true })
          }
          expect(yield* allPets(repo)).toStrictEqual([first.value])
        })
      ),
    runs
  )

  property(
    "a replayed message is the first answer (queued, same id and time) and no second message is stored",
    [account, idempotencyKey, text({ minLength: 1, maxLength: 100 }), base62(12)],
    ([accountId, key, message, otherId]) =>
      withServices((idempotency, _, store, messages, advance) =>
        Effect.gen(function*() {
          const first = yield* idempotency.submitMessage(accountId, key, message)
          yield* advance(1_000)
          expect(yield* idempotency.submitMessage(accountId, key, message)).toStrictEqual({ value: first.value, replayed: true })
          // The port writes nothing under a key it holds: the second message is never stored.
          const now = START + 2_000
          const again = yield* store.insertMessage(
            { accountId, key, operation: "createMessage", fingerprint: "another", now, expiresAt: now + TTL },
            MessageQueue.queuedMessage(`msg_${otherId}`, accountId, message, now)
          )
          expect(again._tag).toBe("Completed")
          expect(again._tag === "Completed" && again.record.resourceId).toBe(first.value.id)
          expect(Option.isNone(yield* messages.find(`msg_${otherId}`))).toBe(true)
        })
      ),
    runs
  )

  property(
    "the key with another body or on the other operation is refused as reused and changes nothing; another account's same key is its own",
    [account, account, idempotencyKey, newPet, newPet],
    ([accountId, otherAccount, key, pet, other]) =>
      withServices((idempotency, repo) =>
        Effect.gen(function*() {
          const first = yield* idempotency.createPet(accountId, key, pet)
          const sameDraft = pet.name === other.name && pet.categoryId === other.categoryId &&
            (pet.status ?? "available") === (other.status ?? "available")
          const second = yield* Effect.result(idempotency.createPet(accountId, key, other))
          if (sameDraft) expect(second).toStrictEqual(Result.succeed({ value: first.value, replayed: true }))
          else expect(Result.isFailure(second) && second.failure._tag).toBe("IdempotencyKeyReused")
          const message = yield* Effect.result(idempotency.submitMessage(accountId, key, pet.name))
          expect(Result.isFailure(message) && message.failure._tag).toBe("IdempotencyKeyReused")
          expect(yield* allPets(repo)).toStrictEqual([first.value])
          if (otherAccount !== accountId) {
            const theirs = yield* idempotency.createPet(otherAccount, key, other)
            expect(theirs.replayed).toBe(false)
            expect(theirs.value.id).not.toBe(first.value.id)
          }
        })
      ),
    runs
  )
}

/** Requests with one key at once create once. */
const concurrencyLaws = <E>({ withServices, runs }: Suite<E>): void => {
  property(
    "concurrent requests with one key create one pet: each answer is that pet or 'in use'",
    [account, idempotencyKey, newPet, fc.integer({ min: 2, max: 20 })],
    ([accountId, key, pet, n]) =>
      withServices((idempotency, repo) =>
        Effect.gen(function*() {
          const exits = yield* Effect.all(
            Array.from({ length: n }, () => Effect.exit(idempotency.createPet(accountId, key, pet))),
            { concurrency: "unbounded" }
          )
          const pets = yield* allPets(repo)
          expect(pets).toHaveLength(1)
          const created = exits.filter((e) => Exit.isSuccess(e) && !e.value.replayed)
          expect(created).toHaveLength(1)
          for (const exit of exits) {
            if (Exit.isSuccess(exit)) expect(exit.value.value).toStrictEqual(pets[0])
            else expect(Option.map(Cause.findErrorOption(exit.cause), (e) => e._tag)).toStrictEqual(Option.some("IdempotencyKeyInUse"))
          }
          // Once they settle, the key replays.
          expect(yield* idempotency.createPet(accountId, key, pet)).toStrictEqual({ value: pets[0], replayed: true })
        })
      ),
    runs
  )

  property(
    "concurrent claims of one key at the store write once: one creates, the others get its record or 'in progress'",
    [account, idempotencyKey, newPet, fc.integer({ min: 2, max: 20 })],
    ([accountId, key, pet, n]) =>
      withServices((_, repo, store) =>
        Effect.gen(function*() {
          const now = START
          const draft = { name: pet.name, categoryId: pet.categoryId, status: pet.status ?? "available" } as const
          const claims = yield* Effect.all(
            Array.from({ length: n }, (_, i) =>
              store.insertPet({ accountId, key, operation: "createPet", fingerprint: `f${i % 2}`, now, expiresAt: now + TTL }, draft)),
            { concurrency: "unbounded" }
          )
          const pets = yield* allPets(repo)
          expect(pets).toHaveLength(1)
          expect(claims.filter((c) => c._tag === "Created")).toHaveLength(1)
          for (const claim of claims) {
            if (claim._tag === "Completed") expect(claim.record.resourceId).toBe(String(pets[0]!.id))
          }
        })
      ),
    runs
  )
}

/** Expiry: a key new again after the retention, and the sweep of expired records. */
const expiryLaws = <E>({ withServices, runs }: Suite<E>): void => {
  property(
    "an expired key is new: a request after the retention creates again, whatever its body; one just before replays",
    [account, idempotencyKey, newPet, newPet],
    ([accountId, key, pet, other]) =>
      withServices((idempotency, repo, _store, _messages, advance) =>
        Effect.gen(function*() {
          const first = yield* idempotency.createPet(accountId, key, pet)
          yield* advance(TTL - 1)
          expect(yield* idempotency.createPet(accountId, key, pet)).toStrictEqual({ value: first.value, replayed: true })
          yield* advance(1)
          const second = yield* idempotency.createPet(accountId, key, other)
          expect(second.replayed).toBe(false)
          expect(second.value.id).toBeGreaterThan(first.value.id)
          expect(yield* idempotency.createPet(accountId, key, other)).toStrictEqual({ value: second.value, replayed: true })
          expect((yield* allPets(repo)).map((p) => p.id)).toStrictEqual([first.value.id, second.value.id])
        })
      ),
    runs
  )

  property(
    "a keyed create starts a sweep (at most once an hour) that removes the records expired by then",
    [account, idempotencyKey, idempotencyKey, newPet],
    ([accountId, old, fresh, pet]) =>
      withServices((idempotency, _repo, store, _messages, advance) =>
        Effect.gen(function*() {
          if (old === fresh) return
          yield* idempotency.createPet(accountId, old, pet)
          expect(Option.isSome(yield* store.find(accountId, old, START))).toBe(true)
          yield* advance(TTL)
          yield* idempotency.createPet(accountId, fresh, pet)
          // The sweep runs in the background: wait (a bounded poll) until the old record is gone.
          let left = true
          for (let i = 0; i < 400 && left; i++) {
            left = Option.isSome(yield* store.find(accountId, old, START))
            if (left) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
          }
          expect(left).toBe(false)
          expect(Option.isSome(yield* store.find(accountId, fresh, START + TTL))).toBe(true)
        })
      ),
    runs
  )

  property(
    "the sweep removes expired records only, at most `limit` at a time",
    [fc.uniqueArray(idempotencyKey, { minLength: 1, maxLength: 7 }), fc.integer({ min: 1, max: 3 }), account],
    ([keys, limit, accountId]) =>
      withServices((_, __, store) =>
        Effect.gen(function*() {
          const now = START
          const draft = { name: "Rex", categoryId: 1 as Pet.CategoryId, status: "available" } as const
          // Every other key lives a day longer.
          for (const [i, key] of keys.entries()) {
            yield* store.insertPet({ accountId, key, operation: "createPet", fingerprint: "f", now, expiresAt: now + TTL * (1 + (i % 2)) }, draft)
          }
          const expired = keys.filter((_, i) => i % 2 === 0).length
          const at = now + TTL
          let removed = 0
          while (true) {
            const batch = yield* store.sweep(at, limit)
            expect(batch).toBeLessThanOrEqual(limit)
            removed += batch
            if (batch < limit) break
          }
          expect(removed).toBe(expired)
          for (const [i, key] of keys.entries()) {
            expect(Option.isSome(yield* store.find(accountId, key, now))).toBe(i % 2 === 1)
          }
        })
      ),
    runs
  )
}

/**
 * Registers the idempotency laws for the stores `stores` provides.
 *
 * @category law suites
 * @since 1.0.0
 */
export const idempotencyLaws = <E>(
  name: string,
  stores: Layer.Layer<IdempotencyLawStores, E>,
  options?: LawSuiteOptions
): void => {
  const suite = suiteOf(name, stores, options)
  describe(`Idempotency laws: ${name}`, () => {
    replayLaws(suite)
    concurrencyLaws(suite)
    expiryLaws(suite)
  })
}
