/**
 * Laws every `MessageStore` implementation obeys.
 *
 * @since 1.0.0
 */
import { fromSchema } from "../arbitraries/FromSchema.js"
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { Message, MessageStore } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, plain, property } from "./internal/support.js"
import { fencingLaws, retryAndFinalStateLaws } from "./internal/messageOutcomeLaws.js"
import {
  anyMessage,
  claimedAs,
  found,
  insertAll,
  lease,
  NOW,
  queued,
  type StoredMessage,
  type Suite,
  suiteOf
} from "./internal/messageStoreSuite.js"


/** Storing and claiming: the oldest claimable message, accounts skipped, a release. */
const claimLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property("insert then find returns exactly the stored message; an unknown id is None", [fc.uniqueArray(anyMessage, {
    selector: (m) => m.id,
    maxLength: 5
  }), base62(22)], ([ms, unknown]) =>
    withStore((store) =>
      Effect.gen(function*() {
        yield* insertAll(store, ms)
        for (const m of ms) expect(Option.map(yield* store.find(m.id), plain)).toStrictEqual(Option.some(m))
        expect(Option.isNone(yield* store.find(`msg_unknown_${unknown}`))).toBe(true)
      })
    ), runs)

  property(
    "claim takes the oldest claimable message, marks it processing, counts the attempt and leases it until now + leaseMillis",
    [queued({ min: 0, max: 12 }, NOW, 5_000), lease],
    ([ms, leaseMillis]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* insertAll(store, ms)
          const claimable = ms.filter((m) => m.availableAt <= NOW)
          for (const m of claimable) {
            const claimed = yield* store.claim(NOW, leaseMillis)
            expect(Option.map(claimed, plain)).toStrictEqual(Option.some(claimedAs(m, NOW, leaseMillis)))
            expect(plain(yield* found(store, m.id))).toStrictEqual(plain(Option.getOrThrow(claimed)))
          }
          expect(Option.isNone(yield* store.claim(NOW, leaseMillis))).toBe(true)
          for (const m of ms.filter((m) => m.availableAt > NOW)) {
            expect(plain(yield* found(store, m.id))).toStrictEqual(m)
          }
        })
      ),
    runs
  )

  property(
    "claim never takes a message of an account it skips, and takes the oldest claimable of the others",
    [
      queued({ min: 0, max: 12 }, NOW, 5_000).chain((ms) =>
        fc.tuple(fc.constant(ms), fc.array(fc.integer({ min: 0, max: 2 }), { minLength: ms.length, maxLength: ms.length }))
      ).map(([ms, owners]) => ms.map((m, i) => ({ ...m, accountId: `acc_owner${owners[i]}` }))),
      fc.subarray(["acc_owner0", "acc_owner1", "acc_owner2"]),
      lease
    ],
    ([ms, skip, leaseMillis]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* insertAll(store, ms)
          const expected = ms.filter((m) => m.availableAt <= NOW && !skip.includes(m.accountId))
          for (const m of expected) {
            const claimed = yield* store.claim(NOW, leaseMillis, skip)
            expect(Option.map(claimed, (c) => c.id)).toStrictEqual(Option.some(m.id))
          }
          expect(Option.isNone(yield* store.claim(NOW, leaseMillis, skip))).toBe(true)
          for (const m of ms.filter((m) => skip.includes(m.accountId))) {
            expect(plain(yield* found(store, m.id))).toStrictEqual(m)
          }
        })
      ),
    runs
  )

  property(
    "release hands a claimed message back untried: queued, its attempt not counted, claimable at once and before younger ones; only by the claim that holds it",
    [queued({ min: 2, max: 4 }, NOW, 0), lease],
    ([ms, leaseMillis]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* insertAll(store, ms)
          const first = Option.getOrThrow(yield* store.claim(NOW, leaseMillis))
          expect(first.id).toBe(ms[0]!.id)
          // Another lease's release (a claim that has been taken over) changes nothing.
          yield* store.release(first.id, first.leaseUntil + 1)
          expect(plain(yield* found(store, first.id))).toMatchObject({ status: "processing", attempts: 1 })
          yield* store.release(first.id, first.leaseUntil)
          expect(plain(yield* found(store, first.id))).toMatchObject({ status: "queued", attempts: 0, lastError: null })
          const again = yield* store.claim(NOW, leaseMillis)
          expect(Option.map(again, (c) => [c.id, c.attempts])).toStrictEqual(Option.some([first.id, 1]))
        })
      ),
    runs
  )
}

/** Listing an account's messages, and a claim held for its lease. */
const leaseAndListingLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "listByAccount pages through the account's messages in the status asked, oldest first, each once",
    [
      queued({ min: 0, max: 12 }, NOW, 0, "lst").chain((ms) =>
        fc.tuple(
          fc.constant(ms),
          fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fromSchema(Message.MessageStatus)), { minLength: ms.length, maxLength: ms.length })
        )
      ).map(([ms, specs]) => ms.map((m, i) => ({ ...m, accountId: `acc_list${specs[i]![0]}`, status: specs[i]![1] }))),
      fc.option(fromSchema(Message.MessageStatus), { nil: undefined }),
      fc.integer({ min: 1, max: 5 })
    ],
    ([ms, status, limit]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* insertAll(store, ms)
          const seen: Array<StoredMessage> = []
          let after: MessageStore.MessagePosition | undefined = undefined
          while (true) {
            const page: ReadonlyArray<StoredMessage> = yield* store.listByAccount({ accountId: "acc_list0", status, after, limit })
            expect(page.length).toBeLessThanOrEqual(limit)
            if (page.length === 0) break
            seen.push(...page)
            after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id }
          }
          const expected = ms.filter((m) => m.accountId === "acc_list0" && (status === undefined || m.status === status))
          expect(seen.map(plain)).toStrictEqual(expected)
        })
      ),
    runs
  )

  property(
    "a claimed message is not claimed again before its lease ends, and is claimed again once it has (crash recovery)",
    [queued({ min: 1, max: 1 }, NOW, 0), lease, fc.nat(), lease],
    ([[m], leaseMillis, early, secondLease]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.insert(m!)
          yield* store.claim(NOW, leaseMillis)
          expect(Option.isNone(yield* store.claim(NOW + (early % leaseMillis), leaseMillis))).toBe(true)
          const reclaimed = yield* store.claim(NOW + leaseMillis, secondLease)
          expect(Option.map(reclaimed, plain)).toStrictEqual(
            Option.some({ ...claimedAs(m!, NOW + leaseMillis, secondLease), attempts: 2 })
          )
        })
      ),
    runs
  )
}

/** When the next claim is due, and claims at once. */
const schedulingLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "nextClaimAt is the earliest instant a pending message may be claimed: nothing is claimable before it, something is at it; pendingCounts counts the pending ones by status",
    [
      queued({ min: 0, max: 10 }, NOW, 0),
      fc.array(fc.tuple(fc.constantFrom("processing", "retry", "delivered", "failed"), lease), { minLength: 10, maxLength: 10 }),
      queued({ min: 0, max: 4 }, NOW + 1_000_000, 500_000, "msglater")
    ],
    ([first, fates, later]) =>
      withStore((store) =>
        Effect.gen(function*() {
          const pendingAt: Array<number> = []
          // Claim every message of `first` (oldest first), then send each to its fate.
          yield* insertAll(store, first)
          for (const [i, m] of first.entries()) {
            const [fate, millis] = fates[i]!
            const claimed = Option.getOrThrow(yield* store.claim(NOW, millis))
            expect(claimed.id).toBe(m.id)
            if (fate === "processing") pendingAt.push(NOW + millis)
            else if (fate === "retry") {
              yield* store.markRetry(claimed, NOW, NOW + millis, "retry")
              pendingAt.push(NOW + millis)
            } else if (fate === "delivered") yield* store.markDelivered(claimed, NOW)
            else yield* store.markFailed(claimed, NOW, "failed")
          }
          yield* insertAll(store, later)
          pendingAt.push(...later.map((m) => m.availableAt))
          // The queue's depth counts the same fates: retried and later ones wait, claimed ones are processing.
          const processing = fates.slice(0, first.length).filter(([fate]) => fate === "processing").length
          expect(yield* store.pendingCounts).toStrictEqual({ queued: pendingAt.length - processing, processing })

          const next = yield* store.nextClaimAt
          if (pendingAt.length === 0) {
            expect(Option.isNone(next)).toBe(true)
            return
          }
          const earliest = Math.min(...pendingAt)
          expect(next).toStrictEqual(Option.some(earliest))
          expect(Option.isNone(yield* store.claim(earliest - 1, 1))).toBe(true)
          expect(Option.isSome(yield* store.claim(earliest, 1))).toBe(true)
        })
      ),
    runs
  )

  property(
    "concurrent claims never hand the same message to two claimers; together they take the oldest, each claimed and leased as by a claim alone",
    [queued({ min: 0, max: 20 }, NOW, 0), fc.integer({ min: 1, max: 30 }), lease],
    ([ms, claimers, leaseMillis]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* insertAll(store, ms)
          const results = yield* Effect.all(
            Array.from({ length: claimers }, () => store.claim(NOW, leaseMillis)),
            { concurrency: "unbounded" }
          )
          const claimed = results.flatMap(Option.toArray)
          expect(claimed).toHaveLength(Math.min(ms.length, claimers))
          expect(new Set(claimed.map((m) => m.id)).size).toBe(claimed.length)
          const byId = new Map(claimed.map((m) => [m.id, m]))
          // However the claims are made (one by one or several in one statement), the taken are the oldest.
          expect([...byId.keys()].sort()).toEqual(ms.slice(0, claimed.length).map((m) => m.id).sort())
          for (const m of ms.slice(0, claimed.length)) expect(byId.get(m.id)).toEqual(claimedAs(m, NOW, leaseMillis))
        })
      ),
    runs
  )
}

/**
 * Registers the laws of `MessageStore` for the implementation `layer` provides.
 *
 * @category law suites
 * @since 1.0.0
 */
export const messageStoreLaws = <E>(
  name: string,
  layer: Layer.Layer<MessageStore.MessageStore, E>,
  options?: LawSuiteOptions
): void => {
  const suite = suiteOf(name, layer, options)
  describe(`MessageStore laws: ${name}`, () => {
    claimLaws(suite)
    leaseAndListingLaws(suite)
    retryAndFinalStateLaws(suite)
    fencingLaws(suite)
    schedulingLaws(suite)
  })
}
