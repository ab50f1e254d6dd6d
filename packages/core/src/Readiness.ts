/**
 * Readiness: whether this instance can serve, as the stores' adapters see it. Two ports, one per
 * dependency an instance needs: the store (`StoreReadiness`, provided by the SQLite and PostgreSQL
 * adapters; the memory stores are always up) and the rate limiter (`LimiterReadiness`, provided by
 * the Redis limiter; the in-process one is always up). A port that is absent counts as up, so an
 * embedder that wires its own stores keeps working.
 *
 * `probe` asks both at most once at a time and reuses the answer for a moment, so no number of
 * readiness requests can load the store.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as References from "effect/References"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * `up`: reachable. `degraded`: unreachable, but the instance still serves without it (the Redis
 * limiter failing open limits in process memory). `down`: the instance cannot serve.
 */
export type State = "up" | "degraded" | "down"

/** What one check found; `reason` names what is unreachable in words (never a URL or a password). */
export interface Check {
  readonly state: State
  readonly reason?: string | undefined
}

/** The answer of a dependency that was reached. */
export const UP: Check = { state: "up" }

/** Whether the stores answer, for `/readyz`. @category services */
export class StoreReadiness extends Context.Service<
  StoreReadiness,
  { readonly check: Effect.Effect<Check> }
>()("@petstore/core/StoreReadiness") {
  /** Stores in process memory: always reachable. */
  static readonly layerAlwaysUp: Layer.Layer<StoreReadiness> = Layer.succeed(StoreReadiness, { check: Effect.succeed(UP) })
}

/** Whether the rate limiter's store answers, for `/readyz`. @category services */
export class LimiterReadiness extends Context.Service<
  LimiterReadiness,
  { readonly check: Effect.Effect<Check> }
>()("@petstore/core/LimiterReadiness") {}

/** What the instance's dependencies answered. */
export interface Report {
  /** Every dependency is up or degraded. */
  readonly ready: boolean
  readonly checks: { readonly store: State; readonly rateLimiter: State }
  /** Why the instance is not ready, or degraded: one sentence per dependency that is not up. */
  readonly reasons: ReadonlyArray<string>
  /** Each dependency's own reason (`undefined` when it is up, or when its check gave none). */
  readonly reasonOf: { readonly store: string | undefined; readonly rateLimiter: string | undefined }
}

/** How long a probe's answer is reused, and how long a probe may take. */
export interface ProbeOptions {
  /** How long an answer is reused (default 1 s): requests in that time share it. */
  readonly reuse?: Duration.Input | undefined
  /** Longest wait for one check; past it the dependency counts as down (default 2 s). */
  readonly timeout?: Duration.Input | undefined
}

const bounded = (what: string, check: Effect.Effect<Check>, timeout: Duration.Duration): Effect.Effect<Check> =>
  check.pipe(
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.succeed<Check>({ state: "down", reason: `the ${what} did not answer within ${Duration.format(timeout)}` })
    }),
    Effect.catchDefect((): Effect.Effect<Check> => Effect.succeed({ state: "down", reason: `the ${what} check failed` }))
  )

const reportOf = (store: Check, rateLimiter: Check): Report => ({
  ready: store.state !== "down" && rateLimiter.state !== "down",
  checks: { store: store.state, rateLimiter: rateLimiter.state },
  reasons: [store.reason, rateLimiter.reason].filter((r): r is string => r !== undefined),
  reasonOf: { store: store.reason, rateLimiter: rateLimiter.reason }
})

const INTERRUPTED = reportOf({ state: "down", reason: "the readiness check was interrupted" }, UP)

/**
 * What an instance tells of its dependencies, shared by `/readyz` and the request path:
 * `report` as `probe`; `refused` counts a request answered 503 because something it needed did not
 * answer. Outages are logged once each way, with no stack trace: one warning when a dependency stops
 * answering (noticed by a probe or by the first refused request), and one line when everything
 * answers again, with how long it took and how many requests were refused meanwhile. While an
 * outage lasts, a watcher probes every `watchEvery` so its end is noticed without traffic.
 */
export interface Watch {
  readonly report: Effect.Effect<Report>
  readonly refused: (reason: string) => Effect.Effect<void>
}

/** How often a readiness watch probes, beside the probe's own options. */
export interface WatchOptions extends ProbeOptions {
  /** How often an outage is probed until it ends (default 250 ms). */
  readonly watchEvery?: Duration.Input | undefined
}

const seconds = (millis: number) => `${(millis / 1000).toFixed(1)} s`

/**
 * The readiness of the ports in the current context (absent ones are up), shared: at most one
 * probe in flight, its answer reused for `reuse`. The probe runs on its own fiber, so a caller
 * that goes away does not cancel it for the others.
 *
 * @category constructors
 */
export const watch = (options: WatchOptions = {}): Effect.Effect<Watch> =>
  Effect.gen(function*() {
    const reuseMillis = Duration.toMillis(options.reuse ?? Duration.seconds(1))
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(2))
    const watchEvery = Duration.fromInputUnsafe(options.watchEvery ?? Duration.millis(250))
    const store = Option.map(yield* Effect.serviceOption(StoreReadiness), (s) => bounded("store", s.check, timeout))
    const limiter = Option.map(yield* Effect.serviceOption(LimiterReadiness), (s) => bounded("rate limiter", s.check, timeout))
    const both = Effect.zipWith(
      Option.getOrElse(store, () => Effect.succeed(UP)),
      Option.getOrElse(limiter, () => Effect.succeed(UP)),
      reportOf,
      { concurrent: true }
    )
    // The outage in progress: since when, how many requests it refused, whether it was said.
    let outage: { readonly since: number; refused: number; announced: boolean } | undefined
    let watching = false
    // Said once per change, not per probe: what became unreachable, and when everything answers again.
    let said = ""
    const sayChange = (report: Report): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const reasons = report.reasons.join("; ")
        if (!report.ready) {
          outage ??= { since: now, refused: 0, announced: false }
          if (reasons === said && outage.announced) return Effect.void
          said = reasons
          outage.announced = true
          return Effect.logWarning(`readiness: not ready: ${reasons}; requests that need it answer 503 unavailable until it answers again`)
        }
        const ended = outage
        outage = undefined
        if (ended?.announced === true) {
          said = reasons
          const count = `${ended.refused} request${ended.refused === 1 ? "" : "s"} refused meanwhile (503 unavailable)`
          return Effect.logInfo(
            `readiness: ${reasons === "" ? "the store and the rate limiter answer" : `ready (degraded: ${reasons})`} again after ${seconds(now - ended.since)}; ${count}`
          )
        }
        if (reasons === said) return Effect.void
        said = reasons
        return reasons === ""
          ? Effect.logInfo("readiness: the store and the rate limiter answer")
          : Effect.logWarning(`readiness: degraded: ${reasons}`)
      })
    const fresh = Effect.tap(both, sayChange)
    let last: { readonly at: number; readonly report: Report } | undefined
    let running: Deferred.Deferred<Report> | undefined
    const report = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (last !== undefined && now - last.at < reuseMillis) return Effect.succeed(last.report)
      if (running !== undefined) return Deferred.await(running)
      // Made and noted before anything yields, so a request arriving meanwhile waits for this probe.
      const answer = Deferred.makeUnsafe<Report>()
      running = answer
      return fresh.pipe(
        Effect.flatMap((report) =>
          Effect.map(Clock.currentTimeMillis, (at) => {
            last = { at, report }
            return report
          })
        ),
        Effect.onExit((exit) => {
          running = undefined
          return Deferred.done(answer, Exit.isSuccess(exit) ? exit : Exit.succeed(INTERRUPTED))
        }),
        Effect.forkDetach,
        Effect.andThen(Deferred.await(answer))
      )
    })
    // Probes until nothing is down; a refusal the probe cannot explain is said once, as it was given.
    const watcher = (reason: string) =>
      Effect.gen(function*() {
        const first = yield* fresh
        if (first.ready) {
          // Not an outage: refusals counted meanwhile belong to no outage either.
          outage = undefined
          yield* Effect.logWarning(`a request was refused (503 unavailable): ${reason}`)
          return
        }
        while (outage !== undefined) {
          yield* Effect.sleep(watchEvery)
          yield* fresh
        }
      }).pipe(Effect.ensuring(Effect.sync(() => (watching = false))))
    const refused = (reason: string): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        // Counted from the first refusal; the watcher's first probe tells whether this is an outage.
        outage ??= { since: now, refused: 0, announced: false }
        outage.refused++
        if (watching) return Effect.void
        watching = true
        // The watcher speaks for the instance, not for the request that woke it: no request's annotations.
        return Effect.asVoid(Effect.forkDetach(Effect.provideService(watcher(reason), References.CurrentLogAnnotations, {})))
      })
    return { report, refused }
  })

/**
 * The readiness of the ports in the current context (absent ones are up): `watch`'s report.
 *
 * @category constructors
 */
export const probe = (options: ProbeOptions = {}): Effect.Effect<Effect.Effect<Report>> =>
  Effect.map(watch(options), (w) => w.report)
