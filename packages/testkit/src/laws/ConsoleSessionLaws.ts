/**
 * Laws every `ConsoleSessionStore` implementation obeys: a created session is found until it ends
 * and not from then on; a removed session is not found (removing one twice, or one that never
 * existed, is no error); creating a session forgets the ended ones but never one still running;
 * sessions are told apart by their id hash alone.
 *
 * @since 2.0.0
 */
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { ConsoleSessionStore } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { instant, numRuns, property } from "./internal/support.js"

type Store = ConsoleSessionStore.ConsoleSessionStore["Service"]

const idHash = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString("hex"))
const lifetime = fc.integer({ min: 1, max: 30 * 86_400_000 })

/**
 * Registers the laws of `ConsoleSessionStore` for the implementation `layer` provides (each run
 * uses fresh id hashes, so a store shared by the runs is fine).
 *
 * @category law suites
 * @since 2.0.0
 */
export const consoleSessionStoreLaws = <E>(
  name: string,
  layer: Layer.Layer<ConsoleSessionStore.ConsoleSessionStore, E>,
  options?: LawSuiteOptions
): void => {
  const withStore = <A, E2>(f: (store: Store) => Effect.Effect<A, E2>) =>
    Effect.provide(Effect.flatMap(ConsoleSessionStore.ConsoleSessionStore, f), layer)
  const runs = numRuns(options, 20)

  describe(`ConsoleSessionStore laws: ${name}`, () => {
    property(
      "a session is found with its end until it ends, and not from then on",
      [instant, idHash, lifetime, fc.integer({ min: 0, max: 30 * 86_400_000 })],
      ([now, id, life, later]) =>
        withStore((store) =>
          Effect.gen(function*() {
            const expiresAt = now + life
            yield* store.create({ idHash: id, expiresAt }, now)
            expect(yield* store.expiresAt(id, now)).toStrictEqual(Option.some(expiresAt))
            const then = now + later
            expect(yield* store.expiresAt(id, then)).toStrictEqual(then < expiresAt ? Option.some(expiresAt) : Option.none())
            yield* store.remove(id)
          })
        ),
      runs
    )

    property(
      "a removed session is not found, whichever others exist; removing twice or an unknown one is no error",
      [instant, fc.uniqueArray(idHash, { minLength: 2, maxLength: 6 }), lifetime],
      ([now, ids, life]) =>
        withStore((store) =>
          Effect.gen(function*() {
            for (const id of ids) yield* store.create({ idHash: id, expiresAt: now + life }, now)
            const [gone, ...kept] = ids
            yield* store.remove(gone!)
            yield* store.remove(gone!)
            expect(yield* store.expiresAt(gone!, now)).toStrictEqual(Option.none())
            for (const id of kept) expect(yield* store.expiresAt(id, now)).toStrictEqual(Option.some(now + life))
            for (const id of kept) yield* store.remove(id)
          })
        ),
      runs
    )

    property(
      "creating a session keeps the others that are still running",
      [instant, idHash, idHash, lifetime, lifetime],
      ([now, first, second, life, secondLife]) =>
        withStore((store) =>
          Effect.gen(function*() {
            if (first === second) return
            yield* store.create({ idHash: first, expiresAt: now + life }, now)
            const later = now + Math.floor(life / 2)
            yield* store.create({ idHash: second, expiresAt: later + secondLife }, later)
            expect(yield* store.expiresAt(first, later)).toStrictEqual(later < now + life ? Option.some(now + life) : Option.none())
            expect(yield* store.expiresAt(second, later)).toStrictEqual(Option.some(later + secondLife))
            yield* store.remove(first)
            yield* store.remove(second)
          })
        ),
      runs
    )
  })
}
