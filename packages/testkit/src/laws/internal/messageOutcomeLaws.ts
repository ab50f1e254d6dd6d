/**
 * The laws of a claim's outcomes in `MessageStore`: retries, final states, a replay (`requeue`), and
 * outcomes fenced by their claim.
 */
import * as fc from "fast-check"
import { expect } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { MessageStore } from "@petstore/core"
import { found, lease, NOW, queued, type Suite } from "./messageStoreSuite.js"
import { plain, property, text } from "./support.js"

/** Retries, final states, and a final message put back (a replay). */
export const retryAndFinalStateLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "markRetry puts the message back in the queue with its error, unclaimable until availableAt",
    [queued({ min: 1, max: 1 }, NOW, 0), lease, fc.integer({ min: 1, max: 86_400_000 }), text({ maxLength: 100 })],
    ([[m], leaseMillis, delay, error]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.insert(m!)
          const claim = Option.getOrThrow(yield* store.claim(NOW, leaseMillis))
          const availableAt = NOW + delay
          yield* store.markRetry(claim, NOW + 1, availableAt, error)
          expect(plain(yield* found(store, m!.id))).toMatchObject({
            status: "queued",
            attempts: 1,
            availableAt,
            lastError: error
          })
          // The lease it had is gone too: nothing is claimable before availableAt, even after the lease.
          expect(Option.isNone(yield* store.claim(availableAt - 1, leaseMillis))).toBe(true)
          expect(yield* store.nextClaimAt).toStrictEqual(Option.some(availableAt))
          const again = yield* store.claim(availableAt, leaseMillis)
          expect(Option.map(again, (c) => [c.id, c.status, c.attempts])).toStrictEqual(
            Option.some([m!.id, "processing", 2])
          )
        })
      ),
    runs
  )

  property(
    "delivered and failed messages are never claimed again and are not pending",
    [queued({ min: 1, max: 1 }, NOW, 0), lease, fc.constantFrom("delivered" as const, "failed" as const), text({
      maxLength: 100
    })],
    ([[m], leaseMillis, outcome, error]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.insert(m!)
          const claim = Option.getOrThrow(yield* store.claim(NOW, leaseMillis))
          if (outcome === "delivered") yield* store.markDelivered(claim, NOW + 1)
          else yield* store.markFailed(claim, NOW + 1, error)
          expect(plain(yield* found(store, m!.id))).toMatchObject(
            outcome === "delivered" ? { status: "delivered", attempts: 1 } : { status: "failed", attempts: 1, lastError: error }
          )
          for (const at of [NOW, NOW + leaseMillis, NOW + 100 * 365 * 86_400_000]) {
            expect(Option.isNone(yield* store.claim(at, leaseMillis))).toBe(true)
          }
          expect(Option.isNone(yield* store.nextClaimAt)).toBe(true)
        })
      ),
    runs
  )

  property(
    "a delivered or failed message put back with requeue (a replay) is claimable again at once, its attempts and last error kept; a pending one is left as it is",
    [queued({ min: 1, max: 1 }, NOW, 0), lease, fc.constantFrom("delivered" as const, "failed" as const), fc.nat({ max: 86_400_000 })],
    ([[m], leaseMillis, outcome, delay]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.insert(m!)
          const claim = Option.getOrThrow(yield* store.claim(NOW, leaseMillis))
          // Processing: a requeue changes nothing.
          yield* store.requeue(m!.id, NOW + 1)
          expect(plain(yield* found(store, m!.id))).toStrictEqual(plain(claim))
          if (outcome === "delivered") yield* store.markDelivered(claim, NOW + 1)
          else yield* store.markFailed(claim, NOW + 1, "gave up")
          const at = NOW + 2 + delay
          yield* store.requeue(m!.id, at)
          expect(plain(yield* found(store, m!.id))).toMatchObject({
            status: "queued",
            attempts: 1,
            availableAt: at,
            updatedAt: at,
            lastError: outcome === "delivered" ? null : "gave up"
          })
          // Queued: a second requeue changes nothing either.
          yield* store.requeue(m!.id, at + 1)
          expect(plain(yield* found(store, m!.id))).toMatchObject({ status: "queued", updatedAt: at })
          expect(yield* store.nextClaimAt).toStrictEqual(Option.some(at))
          const again = yield* store.claim(at, leaseMillis)
          expect(Option.map(again, (c) => [c.id, c.status, c.attempts])).toStrictEqual(Option.some([m!.id, "processing", 2]))
        })
      ),
    runs
  )
}

/** An outcome belongs to its claim: once the lease ran out and another claim took the message, a late outcome changes nothing. */
export const fencingLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "an outcome of a claim whose lease ran out and was claimed again is not written; the newer claim's outcome is",
    [
      queued({ min: 1, max: 1 }, NOW, 0),
      lease,
      lease,
      fc.constantFrom("delivered" as const, "retry" as const, "failed" as const),
      fc.constantFrom("delivered" as const, "retry" as const, "failed" as const)
    ],
    ([[m], firstLease, secondLease, late, current]) =>
      withStore((store) =>
        Effect.gen(function*() {
          const outcome = (fate: "delivered" | "retry" | "failed", claim: MessageStore.Claim, at: number) =>
            fate === "delivered"
              ? store.markDelivered(claim, at)
              : fate === "retry"
              ? store.markRetry(claim, at, at + 1_000, "late retry")
              : store.markFailed(claim, at, "late failure")
          yield* store.insert(m!)
          const first = Option.getOrThrow(yield* store.claim(NOW, firstLease))
          const second = Option.getOrThrow(yield* store.claim(NOW + firstLease, secondLease))
          expect(second.attempts).toBe(2)
          // The first attempt's outcome arrives after the second claim: the row stays the second claim's.
          yield* outcome(late, first, NOW + firstLease + 1)
          expect(plain(yield* found(store, m!.id))).toStrictEqual(plain(second))
          // The second claim's own outcome is written.
          yield* outcome(current, second, NOW + firstLease + 2)
          const after = plain(yield* found(store, m!.id))
          expect(after.status).toBe(current === "retry" ? "queued" : current)
          expect(after.updatedAt).toBe(NOW + firstLease + 2)
          // A claim's outcome is written once: a repeat of it (or the first claim's) changes nothing more.
          yield* outcome(late, second, NOW + firstLease + 3)
          yield* outcome(late, first, NOW + firstLease + 3)
          expect(plain(yield* found(store, m!.id))).toStrictEqual(after)
        })
      ),
    runs
  )
}

