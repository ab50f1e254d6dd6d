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
})
