/**
 * Helpers shared by the law suites: generators of store records, and small checks.
 *
 * @internal
 */
import { fromSchema } from "../../arbitraries/FromSchema.js"
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import { it } from "@effect/vitest"
import { Duration, Effect, Schema, type Scope } from "effect"
import { Pet } from "@petstore/core"
import type { LawSuiteOptions } from "../LawSuite.js"

/** Runs per property test. */
export const numRuns = (options: LawSuiteOptions | undefined, max = Infinity): number =>
  Math.min(max, options?.numRuns ?? 30)

type Values<Arbs extends ReadonlyArray<fc.Arbitrary<unknown>>> = {
  -readonly [K in keyof Arbs]: Arbs[K] extends fc.Arbitrary<infer A> ? A : never
}

/**
 * Registers a property test. Its runs share one test environment (`TestClock` ...), since building one
 * per run costs more than most runs; each run gets a scope of its own and should set the clock it needs.
 * With `live`, the runs use the live clock instead (for laws about real servers and their timeouts).
 */
export const property = <const Arbs extends ReadonlyArray<fc.Arbitrary<unknown>>, E>(
  name: string,
  arbitraries: Arbs,
  body: (values: Values<Arbs>) => Effect.Effect<void, E, Scope.Scope>,
  runs: number,
  live = false
): void => {
  const test = () =>
    // The test's services (its TestClock among them) are captured once and given to every run.
    Effect.flatMap(Effect.context<never>(), (context) =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.tuple(...arbitraries), (values) =>
            Effect.runPromiseWith(context)(Effect.scoped(body(values as Values<Arbs>)))),
          { numRuns: runs }
        )
      ))
  // A live body provides no test services: it must not use them (TestClock ...).
  if (live) it.live(name, test)
  else it.effect(name, test)
}

const BASE62 = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"]

export const base62 = (length: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...BASE62), minLength: length, maxLength: length })

/** Epoch milliseconds between 2020 and 2096, as stores keep them. */
export const instant: fc.Arbitrary<number> = fc.integer({ min: 1_577_836_800_000, max: 4_000_000_000_000 })

/** Text as clients send it: ASCII, and full Unicode graphemes (no control characters). */
export const text = (constraints: { readonly minLength?: number; readonly maxLength?: number } = {}) =>
  fc.oneof(
    fc.string({ minLength: constraints.minLength ?? 0, maxLength: constraints.maxLength ?? 40 }),
    fc.string({ unit: "grapheme", minLength: constraints.minLength ?? 0, maxLength: constraints.maxLength ?? 40 })
  )

/** Pet names, from the core schema and from Unicode text that the schema accepts. */
export const petName: fc.Arbitrary<string> = fc.oneof(
  fromSchema(Pet.PetName),
  text({ minLength: 1 }).filter(Schema.is(Pet.PetName))
)

/** Every string found anywhere inside a value (fields, array items, nested records). */
export const stringsIn = (value: unknown): ReadonlyArray<string> => {
  const out: Array<string> = []
  const visit = (v: unknown): void => {
    if (typeof v === "string") out.push(v)
    else if (Array.isArray(v)) v.forEach(visit)
    else if (v !== null && typeof v === "object") Object.values(v).forEach(visit)
  }
  visit(value)
  return out
}

/** A record as a plain object, so equality ignores the prototype an adapter may give its rows. */
export const plain = <A extends object>(a: A): A => ({ ...a })

export const byId = <A extends { readonly id: string | number }>(a: A, b: A): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0

/** Whether the numbers are strictly increasing. */
export const isStrictlyIncreasing = (ns: ReadonlyArray<number>): boolean => ns.every((n, i) => i === 0 || ns[i - 1]! < n)

/**
 * Real time for the stores after each step (`advanceUntil`'s `settle`): what a step woke runs on, and
 * a store across a network answers meanwhile. Effect 4's `TestClock` runs the fibers a step wakes
 * until they wait again, but not a round trip to a server: where a law times what a worker does right
 * after a step, its round trips (several, on a busy machine more than one turn of the event loop) must
 * be done before the next step moves the clock on.
 */
export const realPause = (millis: number): Effect.Effect<void> => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

/**
 * Waits in real time, the `TestClock` standing still, until `done` holds (at most `maxMillis`): for
 * work a step has started that takes round trips to a store across a network to finish.
 */
export const realUntil = <E, R>(done: Effect.Effect<boolean, E, R>, maxMillis: number): Effect.Effect<void, E, R> =>
  Effect.gen(function*() {
    const until = Date.now() + maxMillis
    while (!(yield* done)) {
      if (Date.now() > until) return yield* Effect.die(new Error(`condition not reached within ${maxMillis} ms of real time`))
      yield* realPause(5)
    }
  })

/**
 * Moves the `TestClock` forward by `step` until `done` holds; dies if it does not within `maxSteps`.
 * Virtual time only: nothing here depends on how fast the machine is. Before the first step and
 * after each one the stores get a millisecond of real time (a store across a network answers then),
 * so a worker woken by a step does its work at that step's time rather than several steps later;
 * `settle` replaces that pause (see `realPause`).
 */
export const advanceUntil = <E, R>(
  done: Effect.Effect<boolean, E, R>,
  step: Duration.Input,
  maxSteps: number,
  settle: Effect.Effect<void> = realPause(1)
): Effect.Effect<void, E, R> =>
  Effect.gen(function*() {
    for (let i = 0; i < maxSteps; i++) {
      // What is due at this step's time happens at that time, before the clock moves on.
      yield* settle
      if (yield* done) return
      yield* TestClock.adjust(step)
    }
    yield* settle
    if (yield* done) return
    return yield* Effect.die(new Error(`condition not reached after ${maxSteps} steps of ${Duration.format(Duration.fromInputUnsafe(step))}`))
  })
