/**
 * An account with limits far above what a test sends, created on a SQLite file before a server
 * starts on it; its API key.
 */
import { Accounts, SecureRandom } from "@petstore/core"
import * as Sqlite from "@petstore/sqlite"
import { Effect, Layer, Redacted, Context } from "effect"

export const createAccount = (filename: string): Promise<string> =>
  Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(
        Accounts.Accounts.layer({ environment: "production" }).pipe(
          Layer.provide(Sqlite.layer({ filename })),
          Layer.provide(SecureRandom.SecureRandom.Live)
        )
      )
      const accounts = Context.getUnsafe(context, Accounts.Accounts)
      const { key } = yield* accounts.create({ plan: "enterprise", limits: { perMinute: 1_000_000, perDay: 100_000_000 } })
      return Redacted.value(key.key)
    }))
  )
