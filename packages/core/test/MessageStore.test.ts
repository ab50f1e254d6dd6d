import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { isClaimable, makeMemory, MessageStore, type StoredMessage } from "../src/MessageStore.js"

const message = (id: string, over: Partial<StoredMessage> = {}): StoredMessage => ({
  id,
  accountId: "acc",
  message: `text ${id}`,
  status: "queued",
  createdAt: 0,
  updatedAt: 0,
  attempts: 0,
  availableAt: 0,
  leaseUntil: 0,
  lastError: null,
  ...over
})

describe("MessageStore (memory)", () => {
  it("isClaimable: queued and available, or processing with an expired lease", () => {
    expect(isClaimable(message("a", { availableAt: 10 }), 9)).toBe(false)
    expect(isClaimable(message("a", { availableAt: 10 }), 10)).toBe(true)
    expect(isClaimable(message("a", { status: "processing", leaseUntil: 10 }), 9)).toBe(false)
    expect(isClaimable(message("a", { status: "processing", leaseUntil: 10 }), 10)).toBe(true)
    expect(isClaimable(message("a", { status: "delivered" }), 99)).toBe(false)
    expect(isClaimable(message("a", { status: "failed" }), 99)).toBe(false)
  })

  it.effect("claim takes the oldest claimable message, marks it processing, counts the attempt and leases it", () =>
    Effect.gen(function*() {
      const store = yield* MessageStore
      yield* store.insert(message("m1", { availableAt: 50 }))
      yield* store.insert(message("m2"))
      yield* store.insert(message("m3"))
      const first = yield* store.claim(10, 100)
      expect(first).toEqual(Option.some(message("m2", { status: "processing", attempts: 1, leaseUntil: 110, updatedAt: 10 })))
      expect(yield* store.find("m2")).toEqual(first)
      expect(Option.map(yield* store.claim(10, 100), (m) => m.id)).toEqual(Option.some("m3"))
      expect(yield* store.claim(10, 100)).toEqual(Option.none())
      expect(Option.map(yield* store.claim(50, 100), (m) => m.id)).toEqual(Option.some("m1"))
      // The lease of m2 runs out at 110: it is claimed again, a second attempt.
      expect(yield* store.claim(109, 100)).toEqual(Option.none())
      expect(Option.map(yield* store.claim(110, 100), (m) => [m.id, m.attempts])).toEqual(Option.some(["m2", 2]))
      expect(yield* store.find("nope")).toEqual(Option.none())
    }).pipe(Effect.provide(MessageStore.layerMemory)))

  it.effect("delivered and failed messages leave the queue; a retry waits until availableAt", () =>
    Effect.gen(function*() {
      const store = makeMemory()
      yield* store.insert(message("m1"))
      yield* store.insert(message("m2"))
      yield* store.insert(message("m3"))
      expect(yield* store.nextClaimAt).toEqual(Option.some(0))
      const m1 = Option.getOrThrow(yield* store.claim(1, 100))
      yield* store.markDelivered(m1, 5)
      expect(yield* store.find("m1")).toEqual(
        Option.some(message("m1", { status: "delivered", attempts: 1, updatedAt: 5, leaseUntil: 0, lastError: null }))
      )
      const m2 = Option.getOrThrow(yield* store.claim(6, 100))
      yield* store.markFailed(m2, 7, "boom")
      expect(yield* store.find("m2")).toEqual(
        Option.some(message("m2", { status: "failed", attempts: 1, updatedAt: 7, leaseUntil: 0, lastError: "boom" }))
      )
      const m3 = Option.getOrThrow(yield* store.claim(8, 100))
      yield* store.markRetry(m3, 9, 500, "later")
      expect(yield* store.find("m3")).toEqual(
        Option.some(message("m3", { status: "queued", attempts: 1, updatedAt: 9, availableAt: 500, leaseUntil: 0, lastError: "later" }))
      )
      expect(yield* store.nextClaimAt).toEqual(Option.some(500))
      expect(yield* store.claim(499, 100)).toEqual(Option.none())
      const claimed = yield* store.claim(500, 100)
      expect(Option.map(claimed, (m) => m.id)).toEqual(Option.some("m3"))
      expect(yield* store.nextClaimAt).toEqual(Option.some(600))
      yield* store.markDelivered(Option.getOrThrow(claimed), 501)
      expect(yield* store.nextClaimAt).toEqual(Option.none())
      // Updating an unknown message changes nothing.
      yield* store.markDelivered({ id: "nope", leaseUntil: 0 }, 1)
      expect(yield* store.find("nope")).toEqual(Option.none())
    }))
})
