/**
 * Laws every readiness check obeys (`Readiness.StoreReadiness` of a store adapter,
 * `Readiness.LimiterReadiness` of a limiter adapter), seen through `Readiness.probe` as `/readyz`
 * sees them: while the dependency answers, the check is up with no reason; while it is away (stopped,
 * cut off, or silent), the probe answers within its bound that the dependency is down (or degraded,
 * for a dependency the instance serves without), in words that name it and never its address or
 * password; once the dependency is back, the check is up again by itself, without a restart.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Context, Duration, Effect, Layer, References, type Scope } from "effect"
import { Readiness } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { numRuns, property } from "./internal/support.js"

/** A way the dependency goes away (`begin`) and comes back (`end`). */
export interface Outage {
  readonly begin: Effect.Effect<void>
  readonly end: Effect.Effect<void>
}

/** One dependency (a server, a database, a file) and the adapter's readiness check on it. */
export interface ReadinessDependency<E> {
  /** The adapter's readiness on this dependency, as the adapter provides it. */
  readonly layer: Layer.Layer<Readiness.StoreReadiness, E> | Layer.Layer<Readiness.LimiterReadiness, E>
  /** The outage named `name` (one of the target's `outages`) of this dependency. */
  readonly outage: (name: string) => Outage
  /** Text no reason may contain: the dependency's URL, host and port, password. */
  readonly secrets: ReadonlyArray<string>
}

/**
 * The adapter under test: `dependency` makes a new dependency (for the life of the scope) with the
 * adapter's readiness on it.
 *
 * @category models
 */
export interface ReadinessTarget<E1, E2> {
  /** The port the adapter provides: the store's or the rate limiter's readiness. */
  readonly port: "store" | "rateLimiter"
  readonly dependency: Effect.Effect<ReadinessDependency<E2>, E1, Scope.Scope>
  /** What the check answers while the dependency is away: `down`, or `degraded` when the instance serves without it. */
  readonly away: "down" | "degraded"
  /** The outages the dependency can be put through (for example `stopped`, `silent`); none for a dependency in process. */
  readonly outages: ReadonlyArray<string>
  /** The probe's bound on one check (default 500 ms): past it the dependency counts as down. */
  readonly bound?: Duration.Input | undefined
}

/**
 * How much later than its bound a probe may answer, for this machine's scheduling (a slow machine
 * shared with other work): the law is that the answer comes, in a time the bound decides, not that
 * the machine is fast.
 */
export const MARGIN = Duration.millis(4_500)

/** How long a law waits for a dependency that is back to be seen up: tries every 50 ms, for 15 s. */
const AGAIN_TRIES = 300

const WORDS = { store: "store", rateLimiter: "rate limiter" } as const

/**
 * Registers the laws of the readiness check `target` provides.
 *
 * @category law suites
 * @since 1.0.0
 */
export const readinessLaws = <E1, E2>(
  name: string,
  target: ReadinessTarget<E1, E2>,
  options?: LawSuiteOptions
): void => {
  const runs = numRuns(options, 5)
  const bound = Duration.fromInputUnsafe(target.bound ?? Duration.millis(500))
  const other = target.port === "store" ? "rateLimiter" : "store"

  /** A probe of the dependency's readiness that reuses no answer, and the port's check itself. */
  const open = (dependency: ReadinessDependency<E2>) =>
    Effect.gen(function*() {
      // The layer provides the port `target.port` names (only that one is read from it).
      const context = yield* Layer.build(dependency.layer as Layer.Layer<Readiness.StoreReadiness | Readiness.LimiterReadiness, E2>)
      const check = target.port === "store"
        ? Context.get(context, Readiness.StoreReadiness).check
        : Context.get(context, Readiness.LimiterReadiness).check
      return { check, probe: yield* Effect.provide(Readiness.probe({ reuse: 0, timeout: bound }), context) }
    })

  // What the dependency and the probe log on the way (outages said and over) is not under test here.
  const quietly = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, References.MinimumLogLevel, "None")

  const expectUp = (report: Readiness.Report) =>
    expect(report).toStrictEqual({ ready: true, checks: { store: "up", rateLimiter: "up" }, reasons: [], reasonOf: { store: undefined, rateLimiter: undefined } })

  describe(`readiness laws: ${name}`, () => {
    property(
      "while the dependency answers, every check is up with no reason, however many run at once, and the probe reports ready",
      [fc.integer({ min: 1, max: 16 })],
      ([concurrent]) =>
        quietly(Effect.gen(function*() {
          const { check, probe } = yield* Effect.flatMap(target.dependency, open)
          const answers = yield* Effect.all(Array.from({ length: concurrent }, () => check), { concurrency: "unbounded" })
          for (const answer of answers) expect(answer).toStrictEqual(Readiness.UP)
          expectUp(yield* probe)
        })),
      runs,
      true
    )

    for (const outage of target.outages) {
      property(
        `${outage}: the probe answers ${target.away} within its bound (${Duration.format(bound)} and a margin of ${
          Duration.format(MARGIN)
        }), naming the ${WORDS[target.port]} and not its address, and up again once it is back, without a restart, however often`,
        [fc.integer({ min: 1, max: 3 })],
        ([cycles]) =>
          quietly(Effect.gen(function*() {
            const dependency = yield* target.dependency
            const { probe } = yield* open(dependency)
            const { begin, end } = dependency.outage(outage)
            expectUp(yield* probe)
            for (let cycle = 0; cycle < cycles; cycle++) {
              yield* begin
              const [elapsed, report] = yield* Effect.timed(probe)
              expect(report.checks).toStrictEqual({ [target.port]: target.away, [other]: "up" })
              expect(report.ready).toBe(target.away === "degraded")
              expect(report.reasons).toHaveLength(1)
              const reason = report.reasons[0]!
              expect(reason).toContain(`the ${WORDS[target.port]}`)
              for (const secret of dependency.secrets) expect(reason).not.toContain(secret)
              expect(Duration.toMillis(elapsed)).toBeLessThanOrEqual(Duration.toMillis(Duration.sum(bound, MARGIN)))
              yield* end
              // Waits for the event (the check up again), a bounded number of times.
              let again: Readiness.Report | undefined
              for (let i = 0; i < AGAIN_TRIES && again?.checks[target.port] !== "up"; i++) {
                if (i > 0) yield* Effect.sleep("50 millis")
                again = yield* probe
              }
              expect(again, `${outage}: the ${WORDS[target.port]} is seen up again once it is back`).toBeDefined()
              expectUp(again!)
            }
          })),
        Math.min(runs, 3),
        true
      )
    }
  })
}
