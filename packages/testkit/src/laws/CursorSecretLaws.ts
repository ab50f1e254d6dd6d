/**
 * Laws every store of the page-cursor secret obeys (the `CursorSigner` a database-backed store
 * builds from the secret it keeps): a cursor issued by one signer is honoured by every other signer
 * opened on the same database, later (a restart) or at the same time (another instance, including
 * two that create the secret at once); a cursor of another database is refused.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, Result, Layer, Option, type Scope, Context } from "effect"
import { PageCursor, Pet } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { numRuns, property } from "./internal/support.js"

/**
 * How to reach the store under test: `database` makes a new, empty database (for the life of the
 * scope) and `signer` opens the store on it, as one process would.
 *
 * @category models
 */
export interface CursorSecretStore<D, E1, E2> {
  readonly database: Effect.Effect<D, E1, Scope.Scope>
  readonly signer: (database: D) => Layer.Layer<PageCursor.CursorSigner, E2>
}

const position: fc.Arbitrary<PageCursor.CursorPosition> = fc.record({
  afterId: fc.integer({ min: 0, max: Pet.MAX_ID }),
  status: fc.option(fc.constantFrom("available", "pending", "sold") as fc.Arbitrary<Pet.PetStatus>, { nil: undefined })
    .map(Option.fromNullishOr)
})

/**
 * Registers the laws of the cursor-secret store `store` opens.
 *
 * @category law suites
 * @since 1.0.0
 */
export const cursorSecretStoreLaws = <D, E1, E2>(
  name: string,
  store: CursorSecretStore<D, E1, E2>,
  options?: LawSuiteOptions
): void => {
  const open = (database: D) =>
    Effect.map(Layer.build(store.signer(database)), (context) => Context.getUnsafe(context, PageCursor.CursorSigner))
  const runs = numRuns(options, 10)

  describe(`cursor secret laws: ${name}`, () => {
    property(
      "a cursor issued before a restart is honoured after it, and by a second instance opened at the same time as the first",
      [fc.array(position, { minLength: 1, maxLength: 8 })],
      ([positions]) =>
        Effect.gen(function*() {
          const database = yield* store.database
          // Two processes starting at once on an empty database both create a secret: one is kept.
          const [first, concurrent] = yield* Effect.all([open(database), open(database)], { concurrency: 2 })
          const restarted = yield* open(database)
          for (const p of positions) {
            const token = first.encode(p)
            for (const other of [concurrent, restarted]) expect(other.decode(token)).toStrictEqual(Result.succeed(p))
            expect(concurrent.encode(p)).toBe(token)
          }
        }),
      runs
    )

    property(
      "a cursor of another database is refused",
      [position],
      ([p]) =>
        Effect.gen(function*() {
          const [one, other] = yield* Effect.all([Effect.flatMap(store.database, open), Effect.flatMap(store.database, open)])
          expect(Result.isFailure(other.decode(one.encode(p)))).toBe(true)
        }),
      Math.min(runs, 3)
    )
  })
}
