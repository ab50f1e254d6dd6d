/**
 * Combinators for effects that may already be answered. An `Exit` is an effect (`Effect.succeed`
 * and `Effect.fail` build one): when a step's effect is one, these run the next step at once
 * instead of describing it, so a request whose every step answers at once (a verified key in
 * memory, the limiter, a kept page) is answered without a fiber. Any other effect gets the usual
 * `Effect` combinator, so the result is the same either way. Run at once, a step that throws
 * throws to the caller (the HTTP adapter turns that into a defect).
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"

/** `Effect.flatMap`, applied at once when `self` is already answered. */
export const flatMap = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  if (!Exit.isExit(self)) return Effect.flatMap(self, f)
  const exit = self as Exit.Exit<A, E>
  return Exit.isSuccess(exit) ? f(exit.value) : Exit.failCause(exit.cause)
}

/** `Effect.map`, applied at once when `self` is already answered. */
export const map = <A, E, R, B>(self: Effect.Effect<A, E, R>, f: (a: A) => B): Effect.Effect<B, E, R> => {
  if (!Exit.isExit(self)) return Effect.map(self, f)
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
