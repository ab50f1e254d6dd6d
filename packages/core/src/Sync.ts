/**
 * The one module that knows when an effect can be answered without a fiber.
 *
 * Most requests complete without waiting: a key found in memory or a cache, the in-memory limiter,
 * a kept page, an in-memory write. Running such a request in a fiber costs more than the request
 * itself, so the request runner (`Sync.run`) takes these answers at once and forks a fiber only
 * for the rest. Everything else in the project builds and composes effects through this module and
 * never looks at how an effect was made.
 *
 * The convention every port adapter follows: work that completes synchronously is built with
 * `Sync.sync` (cannot fail), `Sync.attempt` (a throw becomes a typed failure) or `Sync.suspend` (a
 * choice made when it runs, such as a cache hit or a query); a value already known is
 * `Sync.succeed` or `Sync.fail`. These are ordinary lazy effects (run by a fiber they behave as
 * `Effect.sync`, `Effect.try` and `Effect.suspend`) carrying a step that `Sync.run` and `Sync.now`
 * can take at once. Any other effect (a query, a Redis round trip) is left to a fiber.
 *
 * Composed with `Sync.flatMap`, `Sync.map`, `Sync.match`, `Sync.tap`, `Sync.catchAllCause` and
 * `Sync.onPending`, a chain of such effects stays answerable at once, and stays lazy: nothing runs
 * before the chain is run, and it runs each time it is.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"

const STEP: unique symbol = Symbol.for("@petstore/core/Sync/step")
const EVALUATE: unique symbol = Symbol.for("@petstore/core/Sync/evaluate")
const SUSPENDED: unique symbol = Symbol.for("@petstore/core/Sync/suspended")

/** An effect with a step that runs it now: its answer (an `Exit`), or the effect still to run. */
type Stepped<A, E, R> = Effect.Effect<A, E, R> & { readonly [STEP]: () => Effect.Effect<A, E, R> }

/** Whether `self` can be run now (work made by `Sync`, or a composition of it). */
const isStepped = <A, E, R>(self: Effect.Effect<A, E, R>): boolean =>
  (self as Partial<Stepped<A, E, R>>)[STEP] !== undefined ||
  (self as { readonly [EVALUATE]?: unknown })[EVALUATE] !== undefined ||
  (self as { readonly [SUSPENDED]?: unknown })[SUSPENDED] !== undefined

const withStep = <A, E, R>(effect: Effect.Effect<A, E, R>, step: () => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  ;(effect as { [STEP]?: () => Effect.Effect<A, E, R> })[STEP] = step
  return effect
}

/**
 * An answer already there. `Exit.isExit`'s test, without its checks that `self` is an object and an
 * effect (it is one here): this runs several times per request.
 */
const answered = <A, E, R>(self: Effect.Effect<A, E, R>): self is Exit.Exit<A, E> => {
  const tag = (self as { readonly _tag?: unknown })._tag
  return tag === "Success" || tag === "Failure"
}

/** A failure kept as it is under another success type (it carries no value). */
const failed = <B, E>(exit: Exit.Failure<unknown, E>): Exit.Exit<B, E> => exit as Exit.Exit<never, E>

/**
 * Runs `self` now as far as it goes without waiting: its answer (an `Exit`), or the effect that
 * still has to run in a fiber. Call it only where `self` is being run (inside `Sync.suspend`, or a
 * request's runner), exactly once: the work happens here. A step that throws throws to the caller.
 */
export const now = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  if (answered(self)) return self
  const evaluate = (self as { readonly [EVALUATE]?: () => A })[EVALUATE]
  if (evaluate !== undefined) return Exit.succeed(evaluate())
  const make = (self as { readonly [SUSPENDED]?: () => Effect.Effect<A, E, R> })[SUSPENDED]
  if (make !== undefined) return now(make())
  const step = (self as Partial<Stepped<A, E, R>>)[STEP]
  return step === undefined ? self : step()
}

/** A value already known. */
export const succeed = <A>(value: A): Effect.Effect<A> => Exit.succeed(value)

/** A failure already known. */
export const fail = <E>(error: E): Effect.Effect<never, E> => Exit.fail(error)

/** `Effect.sync(evaluate)`, answerable at once: work that completes synchronously and cannot fail (a throw is a defect). */
export const sync = <A>(evaluate: () => A): Effect.Effect<A> => {
  const effect = Effect.sync(evaluate)
  // The work itself is the step (no closure made for it): `now` runs it.
  ;(effect as { [EVALUATE]?: () => A })[EVALUATE] = evaluate
  return effect
}

/** `Effect.try`, answerable at once: synchronous work whose throw is the failure `onThrow` makes of it. */
export const attempt = <A, E>(evaluate: () => A, onThrow: (thrown: unknown) => E): Effect.Effect<A, E> =>
  withStep(Effect.try({ try: evaluate, catch: onThrow }), () => {
    let value: A
    try {
      value = evaluate()
    } catch (thrown) {
      return Exit.fail(onThrow(thrown))
    }
    return Exit.succeed(value)
  })

/**
 * `Effect.suspend(make)`, answerable at once as far as the effect `make` returns is: the choice of
 * what to do is made when it runs (a cache hit answered at once, a miss that queries).
 */
export const suspend = <A, E, R>(make: () => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const effect = Effect.suspend(make)
  // `make` itself is the step (no closure made for it): `now` runs it.
  ;(effect as { [SUSPENDED]?: () => Effect.Effect<A, E, R> })[SUSPENDED] = make
  return effect
}

/** `Effect.flatMap`, answerable at once when `self` and `f`'s effect are. */
export const flatMap = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  if (answered(self)) return Exit.isSuccess(self) ? f(self.value) : failed(self)
  // Once `self` has waited, the fiber takes what `f` makes at once as far as it goes (`now`), as
  // `Sync.run` does, rather than step by step.
  if (!isStepped(self)) return Effect.flatMap(self, (a) => now(f(a)))
  return withStep(Effect.flatMap(self, f), () => {
    const result = now(self)
    if (!answered(result)) return Effect.flatMap(result, (a) => now(f(a)))
    return Exit.isSuccess(result) ? now(f(result.value)) : failed(result)
  })
}

/** `Effect.map`, answerable at once when `self` is. */
export const map = <A, E, R, B>(self: Effect.Effect<A, E, R>, f: (a: A) => B): Effect.Effect<B, E, R> =>
  answered(self)
    ? (Exit.isSuccess(self) ? Exit.succeed(f(self.value)) : failed(self))
    : flatMap(self, (a) => Exit.succeed(f(a)))

/** `Effect.tap` with a synchronous `f`, answerable at once when `self` is. */
export const tap = <A, E, R>(self: Effect.Effect<A, E, R>, f: (a: A) => void): Effect.Effect<A, E, R> => {
  if (!answered(self)) {
    return flatMap(self, (a) => {
      f(a)
      return Exit.succeed(a)
    })
  }
  // The same answer, told to `f` (no new one is made).
  if (Exit.isSuccess(self)) f(self.value)
  return self
}

/** `Effect.match` of an answer already there. */
const matchExit = <A, E, B, C>(
  exit: Exit.Exit<A, E>,
  options: { readonly onFailure: (error: E) => B; readonly onSuccess: (value: A) => C }
): Exit.Exit<B | C> => {
  if (Exit.isSuccess(exit)) return Exit.succeed(options.onSuccess(exit.value))
  // As `Effect.match`: a defect wins over failures (which then count as defects too).
  if (Chunk.isNonEmpty(Cause.defects(exit.cause))) return Exit.failCause(Cause.flatMap(exit.cause, Cause.die))
  return Either.match(Cause.failureOrCause(exit.cause), {
    onLeft: (error) => Exit.succeed(options.onFailure(error)),
    onRight: (cause) => Exit.failCause(cause)
  })
}

/** `Effect.match`, answerable at once when `self` is (defects and interruptions pass through). */
export const match = <A, E, R, B, C>(
  self: Effect.Effect<A, E, R>,
  options: { readonly onFailure: (error: E) => B; readonly onSuccess: (value: A) => C }
): Effect.Effect<B | C, never, R> => {
  if (answered(self)) return matchExit(self, options)
  if (!isStepped(self)) return Effect.match(self, options)
  return withStep(Effect.match(self, options), () => {
    const result = now(self)
    return answered(result) ? matchExit(result, options) : Effect.match(result, options)
  })
}

/**
 * `Effect.catchAllCause`, answerable at once when `self` and the handler's effect are. Run at once,
 * a step of `self` that throws is caught here as a defect, as a fiber would report it.
 */
export const catchAllCause = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  handler: (cause: Cause.Cause<E>) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E2, R | R2> => {
  if (answered(self)) return settleCause(self, handler)
  if (!isStepped(self)) return Effect.catchAllCause(self, handler)
  return withStep(Effect.catchAllCause(self, handler), () => {
    let result: Effect.Effect<A, E, R>
    try {
      result = now(self)
    } catch (defect) {
      result = Exit.die(defect)
    }
    return settleCause(result, handler)
  })
}

const settleCause = <A, E, R, B, E2, R2>(
  result: Effect.Effect<A, E, R>,
  handler: (cause: Cause.Cause<E>) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E2, R | R2> => {
  if (!answered(result)) return Effect.catchAllCause(result, handler)
  // A success carries no error: kept as it is.
  return Exit.isSuccess(result) ? (result as Exit.Exit<A>) : now(handler(result.cause))
}

/**
 * The first value that is not `undefined` among `step(0)`, `step(1)`, … `step(count - 1)`, run in
 * order (none: `undefined`); a failure ends the list. Answerable at once as far as the steps are.
 * Call it where the steps are being run.
 */
export const firstDefined = <A, E, R>(
  count: number,
  step: (index: number) => Effect.Effect<A | undefined, E, R>,
  from = 0
): Effect.Effect<A | undefined, E, R> => {
  for (let index = from; index < count; index++) {
    const result = now(step(index))
    if (!answered(result)) {
      return Effect.flatMap(result, (value) => (value === undefined ? firstDefined(count, step, index + 1) : Exit.succeed(value)))
    }
    if (Exit.isFailure(result) || result.value !== undefined) return result
  }
  return Exit.succeed(undefined)
}

/**
 * `self`, with `f` applied to it only if it has to wait for a fiber: for what only a fiber has
 * (log annotations, a span), skipped when the answer comes at once.
 */
export const onPending = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  f: (pending: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  if (answered(self)) return self
  if (!isStepped(self)) return f(self)
  return withStep(f(self), () => {
    const result = now(self)
    return answered(result) ? result : f(result)
  })
}

/**
 * `self`, with `f` told its exit when it completes (at once or in a fiber), its result unchanged;
 * an interrupted run is not told. Lazy like `self`: `f` is told each time it runs. Run at once, a
 * step that throws is told as a defect, then thrown on.
 */
export const onExit = <A, E, R>(self: Effect.Effect<A, E, R>, f: (exit: Exit.Exit<A, E>) => void): Effect.Effect<A, E, R> => {
  // `exit` then `flatMap` costs about half of `Effect.onExit` (no uninterruptible region).
  const observe = (effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.exit(effect), (exit) => {
      f(exit)
      return exit
    })
  if (!answered(self) && !isStepped(self)) return observe(self)
  return withStep(observe(self), () => {
    let result: Effect.Effect<A, E, R>
    try {
      result = now(self)
    } catch (defect) {
      f(Exit.die(defect))
      throw defect
    }
    if (!answered(result)) return observe(result)
    f(result)
    return result
  })
}

/**
 * The request runner's one decision: runs `self` now, and hands its answer to `done` at once when
 * it completes without waiting; otherwise `fork` runs the rest in a fiber and `done` gets its exit.
 * A step that throws is answered as a defect.
 */
export const run = <A, E>(
  self: Effect.Effect<A, E>,
  fork: (effect: Effect.Effect<A, E>) => Fiber.RuntimeFiber<A, E>,
  done: (exit: Exit.Exit<A, E>) => void
): void => {
  let result: Effect.Effect<A, E>
  try {
    result = now(self)
  } catch (defect) {
    result = Exit.die(defect)
  }
  if (answered(result)) return done(result)
  fork(result).addObserver(done)
}
