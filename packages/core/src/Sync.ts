/**
 * Combinators for effects that may already be answered. An `Exit` is an effect (`Effect.succeed`
 * and `Effect.fail` build one): when a step's effect is one, these run the next step at once
 * instead of describing it, so a request whose every step answers at once (a verified key in
 * memory, the limiter, a kept page) is answered without a fiber. Any other effect gets the usual
 * `Effect` combinator, so the result is the same either way. Run at once, a step that throws
 * throws to the caller (the HTTP adapter turns that into a defect).
 *
 * Work that completes at once but must stay lazy (an in-memory write or read) is made with
 * `Sync.sync`; the step of a request that runs it calls `Sync.now`, which does the work there.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"

const EVALUATE: unique symbol = Symbol.for("@petstore/core/Sync/evaluate")

/**
 * `Effect.sync(evaluate)`, marked as work that completes at once: where the effect is being run
 * (a request's steps), `Sync.now` runs it there and then instead of leaving it to a fiber. As an
 * `Effect`, it stays lazy: it does its work each time it is run, and not before. An adapter whose
 * write completes synchronously (the in-memory pet repository) builds its effects with this.
 */
export const sync = <A>(evaluate: () => A): Effect.Effect<A> => {
  const effect = Effect.sync(evaluate)
  ;(effect as unknown as { [EVALUATE]: () => A })[EVALUATE] = evaluate
  return effect
}

/**
 * The work of an effect made by `Sync.sync`, to be run at once; `undefined` for any other effect.
 * Only `Sync.sync` sets the mark, on effects that cannot fail (a throw is a defect).
 */
export const evaluator = <A, E, R>(self: Effect.Effect<A, E, R>): (() => A) | undefined =>
  (self as unknown as { readonly [EVALUATE]?: () => A })[EVALUATE]

/** `Effect.flatMap`, applied at once when `self` is already answered. */
export const flatMap = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  if (!Exit.isExit(self)) return Effect.flatMap(self, f)
  const exit = self as Exit.Exit<A, E>
  return Exit.isSuccess(exit) ? f(exit.value) : Exit.failCause(exit.cause)
}

/**
 * `Effect.map`, applied at once when `self` is already answered; on work that completes at once
 * (`Sync.sync`), the mapped work completes at once too (still lazy: `f` runs when it runs).
 */
export const map = <A, E, R, B>(self: Effect.Effect<A, E, R>, f: (a: A) => B): Effect.Effect<B, E, R> => {
  if (!Exit.isExit(self)) {
    const evaluate = evaluator(self)
    return evaluate === undefined ? Effect.map(self, f) : sync(() => f(evaluate()))
  }
  const exit = self as Exit.Exit<A, E>
  return Exit.isSuccess(exit) ? Exit.succeed(f(exit.value)) : Exit.failCause(exit.cause)
}

/** `Effect.match`, applied at once when `self` is already answered (defects and interruptions pass through). */
export const match = <A, E, R, B, C>(
  self: Effect.Effect<A, E, R>,
  options: { readonly onFailure: (error: E) => B; readonly onSuccess: (value: A) => C }
): Effect.Effect<B | C, never, R> => {
  if (!Exit.isExit(self)) return Effect.match(self, options)
  const exit = self as Exit.Exit<A, E>
  if (Exit.isSuccess(exit)) return Exit.succeed(options.onSuccess(exit.value))
  // As `Effect.match`: a defect wins over failures (which then count as defects too).
  if (Chunk.isNonEmpty(Cause.defects(exit.cause))) return Exit.failCause(Cause.flatMap(exit.cause, Cause.die))
  return Either.match(Cause.failureOrCause(exit.cause), {
    onLeft: (error) => Exit.succeed(options.onFailure(error)),
    onRight: (cause) => Exit.failCause(cause)
  })
}

/**
 * Runs `self` now if it completes at once (made by `Sync.sync`): its answer, as an `Exit`. Any other
 * effect is returned as it is, for the fiber that runs the request. Call it only where `self` is
 * about to be run, exactly once (a step of a request being answered): the work happens here.
 * Run at once, work that throws throws to the caller, as the other combinators' steps do.
 */
export const now = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const evaluate = evaluator(self)
  return evaluate === undefined ? self : Exit.succeed(evaluate())
}
