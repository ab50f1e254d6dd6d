/**
 * The `Sync` combinators run the next step at once on an effect that is already answered; their
 * result must be exactly what the `Effect` combinators give, for every kind of exit.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, FastCheck as fc } from "effect"
import * as Sync from "../src/Sync.js"

const cause: fc.Arbitrary<Cause.Cause<string>> = fc.letrec<{ cause: Cause.Cause<string> }>((tie) => ({
  cause: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string({ maxLength: 3 }).map(Cause.fail),
    fc.string({ maxLength: 3 }).map((s) => Cause.die(new Error(s))),
    fc.constant(Cause.interrupt(0 as never)),
    fc.tuple(tie("cause"), tie("cause")).map(([a, b]) => Cause.sequential(a, b)),
    fc.tuple(tie("cause"), tie("cause")).map(([a, b]) => Cause.parallel(a, b))
  )
})).cause

const exit: fc.Arbitrary<Exit.Exit<number, string>> = fc.oneof(
  fc.integer().map((n) => Exit.succeed(n)),
  cause.map((c) => Exit.failCause(c))
)

/** Runs both and compares their exits by what they say (successes, failures, defects, interruptions). */
const same = <A, E>(a: Effect.Effect<A, E>, b: Effect.Effect<A, E>) => {
  const [x, y] = [Effect.runSyncExit(a), Effect.runSyncExit(b)]
  expect(x._tag).toBe(y._tag)
  if (Exit.isSuccess(x) && Exit.isSuccess(y)) return expect(x.value).toStrictEqual(y.value)
  if (Exit.isFailure(x) && Exit.isFailure(y)) {
    expect([...Cause.failures(x.cause)]).toStrictEqual([...Cause.failures(y.cause)])
    expect([...Cause.defects(x.cause)].map(String)).toStrictEqual([...Cause.defects(y.cause)].map(String))
    expect(Cause.isInterrupted(x.cause)).toBe(Cause.isInterrupted(y.cause))
  }
}

describe("Sync combinators", () => {
  it("match, map and flatMap on an answered effect give what Effect's give", () =>
    fc.assert(
      fc.property(exit, (e) => {
        const options = { onFailure: (s: string) => `failed ${s}`, onSuccess: (n: number) => n + 1 }
        same(Sync.match(e, options), Effect.match(e, options))
        same(Sync.map(e, (n) => n * 2), Effect.map(e, (n) => n * 2))
        const next = (n: number) => (n % 2 === 0 ? Effect.succeed(n) : Effect.fail(`odd ${n}`))
        same(Sync.flatMap(e, next), Effect.flatMap(e, next))
      }),
      { numRuns: 500 }
    ))

  it("on an answered effect they answer at once (the result is an Exit); on another they describe", () => {
    expect(Exit.isExit(Sync.map(Effect.succeed(1), (n) => n + 1))).toBe(true)
    expect(Exit.isExit(Sync.match(Effect.fail("x"), { onFailure: () => 0, onSuccess: () => 1 }))).toBe(true)
    expect(Exit.isExit(Sync.map(Effect.sync(() => 1), (n) => n + 1))).toBe(false)
  })

  it("Sync.sync is lazy like Effect.sync: no work until run, the work again on every run", () =>
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), (runs) => {
        let done = 0
        const effect = Sync.sync(() => ++done)
        expect(done).toBe(0)
        for (let i = 1; i <= runs; i++) expect(Effect.runSync(effect)).toBe(i)
        expect(done).toBe(runs)
      })
    ))

  it("Sync.now runs work made by Sync.sync once, there, as an Exit; any other effect is left to run", () => {
    let done = 0
    const answered = Sync.now(Sync.sync(() => ++done))
    expect(answered).toStrictEqual(Exit.succeed(1))
    expect(done).toBe(1)
    // Then the combinators answer at once too: no fiber for the next steps.
    expect(Sync.map(answered, (n) => n + 1)).toStrictEqual(Exit.succeed(2))
    expect(done).toBe(1)
    const other = Effect.sync(() => ++done)
    expect(Sync.now(other)).toBe(other)
    expect(done).toBe(1)
    expect(Sync.evaluator(other)).toBeUndefined()
    // Mapped, it is still work that completes at once, and still lazy.
    const mapped = Sync.map(Sync.sync(() => ++done), (n) => n * 10)
    expect(done).toBe(1)
    expect(Sync.evaluator(mapped)).toBeDefined()
    expect(Sync.now(mapped)).toStrictEqual(Exit.succeed(20))
    expect(Effect.runSync(mapped)).toBe(30)
    // Work that throws throws to the caller, as a step run at once does.
    expect(() => Sync.now(Sync.sync(() => { throw new Error("boom") }))).toThrow("boom")
  })
})
