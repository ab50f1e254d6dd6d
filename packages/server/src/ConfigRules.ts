/**
 * The rules a setting's value must follow, in the words the server answers with: a value that breaks
 * one is refused with a message naming the variable and the rule (never the value of a secret).
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"

/** A value refused by a rule: `message` says which variable and what it must be. */
export const invalid = (message: string): Config.ConfigError =>
  new Config.ConfigError(new ConfigProvider.SourceError({ message }))

/** `self`, refused with `message` where `validation` does not hold. */
export function validate<A, B extends A>(options: {
  readonly message: string
  readonly validation: (value: A) => value is B
}): (self: Config.Config<A>) => Config.Config<B>
export function validate<A>(options: {
  readonly message: string
  readonly validation: (value: A) => boolean
}): (self: Config.Config<A>) => Config.Config<A>
export function validate<A>(options: { readonly message: string; readonly validation: (value: A) => boolean }) {
  return (self: Config.Config<A>): Config.Config<A> =>
    Config.mapEffect(self, (value) => options.validation(value) ? Effect.succeed(value) : Effect.fail(invalid(options.message)))
}

/** `self` read on through `f`, which answers the value or the error that refuses it. */
export const mapOrFail = <A, B>(f: (value: A) => Result.Result<B, Config.ConfigError>) =>
(self: Config.Config<A>): Config.Config<B> => Config.mapEffect(self, (value) => Effect.fromResult(f(value)))

/** `self` and `that` read together, combined by `f`. */
export const zipWith = <A, B, C>(that: Config.Config<B>, f: (a: A, b: B) => C) => (self: Config.Config<A>): Config.Config<C> =>
  Config.map(Config.all([self, that]), ([a, b]) => f(a, b))
