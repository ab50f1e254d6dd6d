/**
 * What composing layers needs beside Effect's own `Layer` module.
 *
 * @since 1.0.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** `self`, its construction's typed failure mapped by `f` (as `Effect.mapError` for an effect). */
export const mapError: {
  <E, E2>(f: (error: E) => E2): <A, R>(self: Layer.Layer<A, E, R>) => Layer.Layer<A, E2, R>
  <A, E, R, E2>(self: Layer.Layer<A, E, R>, f: (error: E) => E2): Layer.Layer<A, E2, R>
} = function(this: unknown, ...args: Array<unknown>) {
  if (args.length === 1) {
    const f = args[0] as (error: unknown) => unknown
    return (self: Layer.Layer<unknown, unknown, unknown>) => mapError(self, f)
  }
  const [self, f] = args as [Layer.Layer<unknown, unknown, unknown>, (error: unknown) => unknown]
  return Layer.fromBuild((memoMap, scope) => Effect.mapError(Layer.buildWithMemoMap(self, memoMap, scope), f))
} as never

/** `self` with the services it provides mapped by `f` (as `Effect.map` for an effect). */
export const map: {
  <A, B>(f: (context: Context.Context<A>) => Context.Context<B>): <E, R>(self: Layer.Layer<A, E, R>) => Layer.Layer<B, E, R>
  <A, E, R, B>(self: Layer.Layer<A, E, R>, f: (context: Context.Context<A>) => Context.Context<B>): Layer.Layer<B, E, R>
} = function(this: unknown, ...args: Array<unknown>) {
  if (args.length === 1) {
    const f = args[0] as (context: Context.Context<unknown>) => Context.Context<unknown>
    return (self: Layer.Layer<unknown, unknown, unknown>) => map(self, f)
  }
  const [self, f] = args as [Layer.Layer<unknown, unknown, unknown>, (context: Context.Context<unknown>) => Context.Context<unknown>]
  return Layer.flatMap(self, (context) => Layer.succeedContext(f(context)))
} as never
