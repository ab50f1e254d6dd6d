/**
 * Rotating one key from two instances at once, on one PostgreSQL database: a key is rotated once, so
 * of all the concurrent rotations exactly one issues a key, on whichever instance it ran; every other
 * one is refused with `KeyAlreadyRotated` naming that key, and leaves nothing behind. The old key is
 * still in its grace period (it works) while the others arrive: the case that used to issue a key
 * per call.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Layer, Redacted, Context } from "effect"
import { Accounts, SecureRandom } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

/** An instance's `Accounts` service on `url` (its own pool and key cache), for the life of the scope. */
const instance = (url: string) =>
  Effect.map(
    Layer.build(
      Accounts.Accounts.layer({ environment: "production" }).pipe(
        Layer.provide(Postgres.layer({ url, poolSize: 4 })),
        Layer.provide(SecureRandom.SecureRandom.Live)
      )
    ),
    (context) => Context.getUnsafe(context, Accounts.Accounts)
  )

const ROUNDS = 4
const PER_INSTANCE = 4

if ("skip" in database) {
  describe.skip(`key rotation race on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("key rotation on PostgreSQL, two instances at once", () => {
    it.live("of concurrent rotations of a key in its grace period, exactly one issues a key; the others name it", () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(() => database.freshUrl())
        const [a, b] = [yield* instance(url), yield* instance(url)]
        const { account, key } = yield* a.create({ plan: "pro" })
        let current = key
        for (let round = 0; round < ROUNDS; round++) {
          const rotations = [a, b].flatMap((accounts) =>
            Array.from({ length: PER_INSTANCE }, () => Effect.result(accounts.rotate(current.id, { graceSeconds: 3_600 })))
          )
          const outcomes = yield* Effect.all(rotations, { concurrency: "unbounded" })
          const issued = outcomes.filter(Result.isSuccess).map((o) => o.success)
          expect(issued, `round ${round}`).toHaveLength(1)
          const winner = issued[0]!
          for (const outcome of outcomes) {
            if (Result.isFailure(outcome)) {
              expect(outcome.failure).toMatchObject({ _tag: "KeyAlreadyRotated", id: current.id, successorId: winner.id })
            }
          }
          // Both keys work on both instances: the old one is in its grace period.
          for (const accounts of [a, b]) {
            for (const k of [current, winner]) expect(yield* accounts.verify(Redacted.value(k.key))).toMatchObject({ _tag: "Some" })
          }
          const listed = yield* b.listKeys(account.id)
          expect(listed).toHaveLength(round + 2)
          expect(listed.find((k) => k.id === current.id)?.rotatedTo).toBe(winner.id)
          expect(listed.filter((k) => k.rotatedTo === null).map((k) => k.id)).toStrictEqual([winner.id])
          current = winner
        }
        const sql = TestDatabase.connect(url)
        const rows = yield* Effect.promise(() => sql.query<{ n: number }>("SELECT count(*)::int8 AS n FROM api_keys"))
        yield* Effect.promise(() => sql.end())
        expect(rows[0]!.n).toBe(ROUNDS + 1)
      }).pipe(Effect.scoped), 60_000)
  })
}
