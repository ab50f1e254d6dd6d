/**
 * `Sync` is the one place that decides whether an effect can be answered without a fiber. Its laws:
 * whatever an effect is made of (an answer already there, work made by `Sync`, an ordinary effect),
 * its combinators give exactly what Effect's give, whether a fiber runs the result or `Sync.run`
 * does; they stay lazy (nothing runs before the result does, and all of it each time it does);
 * and `Sync.run` forks a fiber exactly when some step has to wait.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, FastCheck as fc, Fiber } from "effect"
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

/**
 * How an effect with the answer `exit` is made: already there, by `Sync` (answerable at once), a
 * wait for a callback (`Sync.callback`, answered on a later turn of the event loop), or one that
 * waits in a fiber.
 */
type Shape = "answered" | "suspended" | "callback" | "waiting"
const shape: fc.Arbitrary<Shape> = fc.constantFrom("answered", "suspended", "callback", "waiting")

const later = <A, E>(answer: Exit.Exit<A, E>): Effect.Effect<A, E> =>
  Sync.callback((resume) => void setImmediate(() => resume(answer)))

const made = <A, E>(how: Shape, answer: Exit.Exit<A, E>): Effect.Effect<A, E> =>
  how === "answered"
    ? answer
    : how === "suspended"
    ? Sync.suspend(() => answer)
    : how === "callback"
    ? later(answer)
    : Effect.flatMap(Effect.yieldNow(), () => answer)

/** `effect` run by `Sync.run`, with whether it needed a fiber. */
const runBySync = <A, E>(effect: Effect.Effect<A, E>): Promise<{ exit: Exit.Exit<A, E>; forked: boolean }> =>
  new Promise((resolve) => {
    let forked = false
    Sync.run(effect, (rest) => {
      forked = true
      return Effect.runFork(rest)
    }, (exit) => resolve({ exit, forked }))
  })

/** Both exits say the same (successes, failures, defects, interruptions). */
const same = <A, E>(x: Exit.Exit<A, E>, y: Exit.Exit<A, E>) => {
  expect(x._tag).toBe(y._tag)
  if (Exit.isSuccess(x) && Exit.isSuccess(y)) return expect(x.value).toStrictEqual(y.value)
  if (Exit.isFailure(x) && Exit.isFailure(y)) {
    expect([...Cause.failures(x.cause)]).toStrictEqual([...Cause.failures(y.cause)])
    expect([...Cause.defects(x.cause)].map(String)).toStrictEqual([...Cause.defects(y.cause)].map(String))
    expect(Cause.hasInterrupts(x.cause)).toBe(Cause.hasInterrupts(y.cause))
  }
}

const fiberExit = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Fiber.await(Effect.runFork(effect)))

const next = (n: number) => (n % 2 === 0 ? Effect.succeed(n) : Effect.fail(`odd ${n}`))
const options = { onFailure: (s: string) => `failed ${s}`, onSuccess: (n: number) => n + 1 }

/** Each combinator beside the Effect combinator it stands for. */
const pairs = (e: Effect.Effect<number, string>) => [
  [Sync.map(e, (n) => n * 2), Effect.map(e, (n) => n * 2)],
  [Sync.flatMap(e, next), Effect.flatMap(e, next)],
  [Sync.match(e, options), Effect.match(e, options)],
  [Sync.tap(e, () => {}), Effect.tap(e, () => {})],
  [Sync.catchAllCause(e, (c) => Effect.succeed(Cause.pretty(c).length)), Effect.catchCause(e, (c) => Effect.succeed(Cause.pretty(c).length))],
  [Sync.onPending(e, (w) => Effect.map(w, (n) => n)), e],
  [Sync.onExit(e, () => {}), e]
] as ReadonlyArray<readonly [Effect.Effect<unknown, unknown>, Effect.Effect<unknown, unknown>]>

describe("Sync", () => {
  it("its combinators give what Effect's give, run by a fiber or by Sync.run, whatever the effect is made of", () =>
    fc.assert(
      fc.asyncProperty(exit, shape, async (answer, how) => {
        for (const [ours, theirs] of pairs(made(how, answer))) {
          const expected = await fiberExit(theirs)
          same(await fiberExit(ours), expected)
          same((await runBySync(ours)).exit, expected)
        }
      }),
      { numRuns: 300 }
    ))

  it("Sync.run forks a fiber exactly when a step waits in a fiber (never for a callback)", () =>
    fc.assert(
      fc.asyncProperty(fc.array(shape, { minLength: 1, maxLength: 5 }), async (shapes) => {
        // A chain of steps, each made one of the ways.
        const chain = shapes.reduce<Effect.Effect<number>>(
          (effect, how) => Sync.flatMap(effect, (n) => made(how, Exit.succeed(n + 1))),
          Sync.succeed(0)
        )
        const { exit: result, forked } = await runBySync(chain)
        expect(result).toStrictEqual(Exit.succeed(shapes.length))
        expect(forked).toBe(shapes.includes("waiting"))
      }),
      { numRuns: 200 }
    ))

  it("is lazy: building a chain does no work, and each run does all of it again", () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 4 }), async (runs) => {
        let done = 0
        const chain = Sync.map(Sync.flatMap(Sync.sync(() => ++done), (n) => Sync.sync(() => n + ++done)), (n) => n * 10)
        expect(done).toBe(0)
        for (let i = 1; i <= runs; i++) {
          const { exit: result, forked } = await runBySync(chain)
          expect(forked).toBe(false)
          expect(Exit.isSuccess(result)).toBe(true)
        }
        expect(done).toBe(2 * runs)
        expect(Effect.runSync(chain)).toBe(10 * (2 * runs + 1 + 2 * runs + 2))
      })
    ))

  it("Sync.attempt's throw is its failure; a step that throws is a defect that catchAllCause and Sync.run see", async () => {
    const failing = Sync.attempt(() => JSON.parse("{"), () => "not json")
    expect(Sync.now(failing)).toStrictEqual(Exit.fail("not json"))
    expect(Effect.runSyncExit(failing)).toStrictEqual(Exit.fail("not json"))
    const throwing = Sync.sync((): number => {
      throw new Error("boom")
    })
    const recovered = Sync.catchAllCause(throwing, (c) => Sync.succeed(Cause.hasDies(c) ? "defect" : "other"))
    expect(Sync.now(recovered)).toStrictEqual(Exit.succeed("defect"))
    const { exit: died, forked } = await runBySync(throwing)
    expect(forked).toBe(false)
    expect(Exit.isFailure(died) && Cause.hasDies(died.cause)).toBe(true)
    let told: Exit.Exit<number> | undefined
    expect(() => Sync.now(Sync.onExit(throwing, (e) => void (told = e)))).toThrow("boom")
    expect(told !== undefined && Exit.isFailure(told) && Cause.hasDies(told.cause)).toBe(true)
  })

  it("Sync.firstDefined runs the steps in order up to the first value, at once as far as they are", () =>
    fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(shape, fc.option(fc.integer(), { nil: undefined })), { maxLength: 6 }), async (steps) => {
        const ran: Array<number> = []
        const found = Sync.firstDefined(
          steps.map((_, i) => (input: string) => {
            ran.push(i)
            expect(input).toBe("the input")
            return made(steps[i]![0], Exit.succeed(steps[i]![1]))
          }),
          "the input"
        )
        const { exit: result } = await runBySync(found)
        const first = steps.findIndex(([, value]) => value !== undefined)
        expect(result).toStrictEqual(Exit.succeed(first === -1 ? undefined : steps[first]![1]))
        expect(ran).toStrictEqual(Array.from({ length: first === -1 ? steps.length : first + 1 }, (_, i) => i))
      }),
      { numRuns: 200 }
    ))

  it("Sync.suspendWith applies its function to its input when it runs, and each time it does", () =>
    fc.assert(
      fc.asyncProperty(shape, fc.integer(), async (how, input) => {
        let calls = 0
        const effect = Sync.suspendWith((n: number) => {
          calls++
          return made(how, Exit.succeed(n + 1))
        }, input)
        expect(calls).toBe(0)
        expect((await runBySync(effect)).exit).toStrictEqual(Exit.succeed(input + 1))
        expect(await Effect.runPromise(effect)).toBe(input + 1)
        expect(calls).toBe(2)
      }),
      { numRuns: 100 }
    ))

  it("Sync.callback begins its work when it runs, once per run, and Sync.run waits for it without a fiber", () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 }), exit, async (runs, answer) => {
        let registered = 0
        const wait = Sync.callback<number, string>((resume) => {
          registered++
          setImmediate(() => resume(answer))
        })
        const chain = Sync.map(Sync.flatMap(wait, (n) => later(Exit.succeed(n + 1))), (n) => n * 2)
        expect(registered).toBe(0)
        const expected = await fiberExit(Effect.map(Effect.flatMap(answer, (n) => Effect.succeed(n + 1)), (n) => n * 2))
        for (let i = 1; i <= runs; i++) {
          const { exit: result, forked } = await runBySync(chain)
          expect(forked).toBe(false)
          same(result, expected)
          expect(registered).toBe(i)
        }
        same(await fiberExit(chain), expected)
        expect(registered).toBe(runs + 1)
      }),
      { numRuns: 100 }
    ))

  it("Sync.onPending applies its function only when a fiber has to run what follows, after a callback too", () =>
    fc.assert(
      fc.asyncProperty(fc.array(shape, { maxLength: 4 }), async (shapes) => {
        let applied = 0
        const chain = shapes.reduce<Effect.Effect<number>>(
          (effect, how) => Sync.flatMap(effect, (n) => made(how, Exit.succeed(n + 1))),
          Sync.succeed(0)
        )
        const observed = Sync.onPending(chain, (waiting) => {
          applied++
          return Effect.map(waiting, (n) => n + 100)
        })
        const { exit: result, forked } = await runBySync(observed)
        const fiber = shapes.includes("waiting")
        expect(result).toStrictEqual(Exit.succeed(shapes.length + (fiber ? 100 : 0)))
        expect(forked).toBe(fiber)
        expect(applied).toBe(fiber ? 1 : 0)
      }),
      { numRuns: 200 }
    ))

  it("Sync.run takes a callback's first resume only, and a register that throws as a defect", async () => {
    const twice = Sync.map(Sync.callback<number, never>((resume) => {
      resume(Exit.succeed(1))
      resume(Exit.succeed(2))
    }), (n) => n * 10)
    const results: Array<Exit.Exit<number>> = []
    Sync.run(twice, () => expect.fail("a fiber was forked"), (exit) => void results.push(exit))
    expect(results).toStrictEqual([Exit.succeed(10)])
    const throwing = Sync.callback<number, never>(() => {
      throw new Error("register")
    })
    const { exit: died, forked } = await runBySync(throwing)
    expect(forked).toBe(false)
    expect(Exit.isFailure(died) && Cause.hasDies(died.cause)).toBe(true)
    same(died, await fiberExit(throwing))
  })

  it("a register that throws, or resumes at once, goes through the steps chained after the wait, as in a fiber", async () => {
    const cases = [
      Sync.callback<number, never>(() => {
        throw new Error("register")
      }),
      Sync.callback<number, never>((resume) => resume(Exit.die(new Error("at once"))))
    ]
    for (const wait of cases) {
      const told: Array<Exit.Exit<number>> = []
      const chained = Sync.onExit(Sync.catchAllCause(wait, (c) => Sync.succeed(Cause.hasDies(c) ? -1 : -2)), (exit) => void told.push(exit))
      const { exit, forked } = await runBySync(chained)
      expect(forked).toBe(false)
      expect(exit).toStrictEqual(Exit.succeed(-1))
      expect(told).toStrictEqual([Exit.succeed(-1)])
      same(exit, await fiberExit(chained))
    }
    // A `done` that throws while a resume at once is taken is not swallowed.
    const atOnce = Sync.callback<number, never>((resume) => resume(Exit.succeed(1)))
    expect(() =>
      Sync.run(atOnce, () => expect.fail("a fiber was forked"), () => {
        throw new Error("done")
      })
    ).toThrow("done")
  })

  it("a step after a callback that throws is a defect, seen by catchAllCause and Sync.run", async () => {
    const throwing = Sync.map(later(Exit.succeed(1)), (): number => {
      throw new Error("boom")
    })
    const recovered = Sync.catchAllCause(throwing, (c) => Sync.succeed(Cause.hasDies(c) ? -1 : -2))
    expect((await runBySync(recovered)).exit).toStrictEqual(Exit.succeed(-1))
    const { exit: died, forked } = await runBySync(throwing)
    expect(forked).toBe(false)
    expect(Exit.isFailure(died) && Cause.hasDies(died.cause)).toBe(true)
  })

  it("Sync.now takes work made by Sync at once and leaves any other effect as it is", () => {
    let done = 0
    expect(Sync.now(Sync.sync(() => ++done))).toStrictEqual(Exit.succeed(1))
    const other = Effect.sync(() => ++done)
    expect(Sync.now(other)).toBe(other)
    expect(done).toBe(1)
  })
})
