import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"

import * as BoundedCache from "../src/BoundedCache.js"

type Op =
  | { readonly op: "set"; readonly key: number; readonly value: number }
  | { readonly op: "get"; readonly key: number }
  | { readonly op: "delete"; readonly key: number }
  | { readonly op: "clear" }

// Few keys, so sequences hit, overwrite and overflow small caches often.
const arbKey = fc.integer({ min: 0, max: 12 })
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("set" as const), key: arbKey, value: fc.integer() }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("get" as const), key: arbKey }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), key: arbKey }) },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) }
)
const arbCapacity = fc.integer({ min: 1, max: 8 })
const arbOps = fc.array(arbOp, { maxLength: 200 })

/** Runs `op` on `cache`; what a get answered, `undefined` for the other operations. */
const apply = (cache: BoundedCache.BoundedCache<number, number>, op: Op): number | undefined => {
  switch (op.op) {
    case "get":
      return cache.get(op.key)
    case "set":
      cache.set(op.key, op.value)
      break
    case "delete":
      cache.delete(op.key)
      break
    case "clear":
      cache.clear()
  }
  return undefined
}

describe("BoundedCache", () => {
  prop("never holds more than capacity entries, whatever the operations", [arbCapacity, arbOps], ([capacity, ops]) => {
    const cache = BoundedCache.make<number, number>(capacity)
    for (const op of ops) {
      apply(cache, op)
      expect(cache.size).toBeLessThanOrEqual(capacity)
    }
  })

  prop("with a weight budget: never weighs more than the budget, its weight is the sum of its entries', and a value that fits is kept", [
    arbCapacity,
    fc.integer({ min: 1, max: 50 }),
    arbOps
  ], ([capacity, budget, ops]) => {
    // The weight of a value is its absolute value modulo 20: zero, light and over-budget values all occur.
    const weigh = (value: number) => Math.abs(value) % 20
    const cache = BoundedCache.make<number, number>(capacity, { budget, weigh })
    const model = new Map<number, number>()
    for (const op of ops) {
      apply(cache, op)
      if (op.op === "set") {
        model.delete(op.key)
        const total = [...model.values()].reduce((sum, v) => sum + weigh(v), 0)
        if (weigh(op.value) <= budget) {
          if (model.size >= capacity || total + weigh(op.value) > budget) model.clear()
          model.set(op.key, op.value)
        }
      } else if (op.op === "delete") model.delete(op.key)
      else if (op.op === "clear") model.clear()
      expect(cache.weight).toBeLessThanOrEqual(budget)
      expect(cache.size).toBe(model.size)
      expect(cache.weight).toBe([...model.values()].reduce((sum, v) => sum + weigh(v), 0))
      for (const [key, value] of model) expect(cache.get(key)).toBe(value)
    }
  })

  prop("a get after a set returns the value until the key is set again, deleted, or the cache starts over", [
    arbCapacity,
    arbOps,
    arbKey,
    fc.integer()
  ], ([capacity, ops, key, value]) => {
    const cache = BoundedCache.make<number, number>(capacity)
    cache.set(key, value)
    let kept = true
    for (const op of ops) {
      // Starting over: a new key arrives while the cache is full.
      const startsOver = op.op === "set" && cache.size === capacity && cache.get(op.key) === undefined
      apply(cache, op)
      if (startsOver || op.op === "clear" || (op.op !== "get" && op.key === key)) kept = false
      if (!kept) break
      expect(cache.get(key)).toBe(value)
    }
  })

  prop("agrees with its rule: a Map emptied when a new key arrives while it holds capacity entries", [
    arbCapacity,
    arbOps
  ], ([capacity, ops]) => {
    const cache = BoundedCache.make<number, number>(capacity)
    const model = new Map<number, number>()
    for (const op of ops) {
      const got = apply(cache, op)
      switch (op.op) {
        case "set":
          if (model.size >= capacity && !model.has(op.key)) model.clear()
          model.set(op.key, op.value)
          break
        case "get":
          expect(got).toBe(model.get(op.key))
          break
        case "delete":
          model.delete(op.key)
          break
        case "clear":
          model.clear()
      }
      expect(cache.size).toBe(model.size)
    }
    for (const [key, value] of model) expect(cache.get(key)).toBe(value)
  })

  prop("a get changes nothing, and setting a kept key again never drops another", [arbCapacity, arbOps], ([capacity, ops]) => {
    const cache = BoundedCache.make<number, number>(capacity)
    for (const op of ops) apply(cache, op)
    const size = cache.size
    for (let key = 0; key <= 12; key++) cache.get(key)
    expect(cache.size).toBe(size)
    const kept = [...Array(13).keys()].filter((key) => cache.get(key) !== undefined)
    for (const key of kept) cache.set(key, -key)
    expect(cache.size).toBe(size)
    for (const key of kept) expect(cache.get(key)).toBe(-key)
  })

  it("a new key at a full cache starts it over with that key alone", () => {
    const cache = BoundedCache.make<string, number>(2)
    cache.set("a", 1)
    cache.set("b", 2)
    expect([cache.get("a"), cache.get("b"), cache.size]).toEqual([1, 2, 2])
    cache.set("c", 3)
    expect([cache.get("a"), cache.get("b"), cache.get("c"), cache.size]).toEqual([undefined, undefined, 3, 1])
    expect(cache.capacity).toBe(2)
  })

  for (const capacity of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`refuses a capacity of ${capacity}`, () => {
      expect(() => BoundedCache.make(capacity)).toThrow(RangeError)
    })
  }
})
