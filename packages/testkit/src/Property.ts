/**
 * Property tests in vitest with fast-check: `prop(name, arbitraries, body)` checks `body` for every
 * generated tuple (an array of arbitraries) or record (an object of arbitraries), `propEffect` the
 * effect `body` makes of it; a schema in place of an arbitrary stands for the values of that schema
 * (`fromSchema`).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as fc from "fast-check"
import { it } from "vitest"
import { fromSchema } from "./arbitraries/FromSchema.js"

type Input = fc.Arbitrary<unknown> | { readonly Type: unknown; readonly ast: unknown }

type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : A extends { readonly Type: infer T } ? T : never

/** The values a body is given: a tuple for an array of inputs, a record for an object of them. */
export type Values<Inputs> = { -readonly [K in keyof Inputs]: ValueOf<Inputs[K]> }

/** A test's time limit, or its time limit and fast-check's parameters. */
export type PropOptions = number | { readonly timeout?: number; readonly fastCheck?: fc.Parameters<unknown> }

const arbitraryOf = (input: Input): fc.Arbitrary<unknown> =>
  fc.Arbitrary.prototype.isPrototypeOf(input) ? (input as fc.Arbitrary<unknown>) : fromSchema(input as never)

/** The arbitrary of the body's argument: a tuple or a record of the inputs' arbitraries. */
export const arbitraryOfInputs = (inputs: ReadonlyArray<Input> | Readonly<Record<string, Input>>): fc.Arbitrary<any> =>
  Array.isArray(inputs)
    ? fc.tuple(...inputs.map(arbitraryOf))
    : fc.record(Object.fromEntries(Object.entries(inputs).map(([key, input]) => [key, arbitraryOf(input)])))

/** A vitest test of `body` over every generated value of `inputs`. */
export const prop = <const Inputs extends ReadonlyArray<Input> | Readonly<Record<string, Input>>>(
  name: string,
  inputs: Inputs,
  body: (values: Values<Inputs>) => unknown,
  options?: PropOptions
): void => {
  const timeout = typeof options === "number" ? options : options?.timeout
  const parameters = typeof options === "object" ? options.fastCheck : undefined
  it(name, timeout === undefined ? {} : { timeout }, () => {
    fc.assert(fc.property(arbitraryOfInputs(inputs), (values) => body(values) !== false), parameters ?? {})
  })
}

/**
 * A vitest test of the effect `body` makes of every generated value of `inputs`, each run in a scope
 * of its own with the live clock; the property holds when every effect succeeds.
 */
export const propEffect = <const Inputs extends ReadonlyArray<Input> | Readonly<Record<string, Input>>, E>(
  name: string,
  inputs: Inputs,
  body: (values: Values<Inputs>) => Effect.Effect<unknown, E, Scope.Scope>,
  options?: PropOptions
): void => {
  const timeout = typeof options === "number" ? options : options?.timeout
  const parameters = typeof options === "object" ? options.fastCheck : undefined
  it(name, timeout === undefined ? {} : { timeout }, () =>
    fc.assert(
      fc.asyncProperty(arbitraryOfInputs(inputs), (values) => Effect.runPromise(Effect.scoped(Effect.asVoid(body(values))))),
      parameters ?? {}
    ))
}
