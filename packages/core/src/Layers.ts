/**
 * What composing layers needs beside Effect's own `Layer` module.
 *
 * @since 1.0.0
 */
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
