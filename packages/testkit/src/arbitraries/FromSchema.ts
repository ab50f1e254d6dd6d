/**
 * A fast-check arbitrary drawn from a schema: the values come from Effect's own arbitrary for the
 * schema (`Arbitrary.schema`), so every constraint the schema declares (lengths, ranges, literals,
 * brands and their checks) holds for every value; fast-check supplies the seed of each draw, so a
 * failing run replays from fast-check's seed like any other property.
 *
 * @since 1.0.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import * as fc from "fast-check"

/** Values of `schema`, one per seed fast-check draws (no shrinking beyond the seed's). */
export const fromSchema = <S extends Schema.Top>(schema: S): fc.Arbitrary<S["Type"]> => {
  const values = Arbitrary.schema(schema)
  return fc.integer({ min: 0, max: 0x7fffffff }).map((seed) => {
    const [value] = Effect.runSync(Arbitrary.sampleEffect(values, { count: 1, seed }))
    return value as S["Type"]
  })
}
