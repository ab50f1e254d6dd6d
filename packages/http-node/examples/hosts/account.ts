import { Accounts } from "@petstore/core"
import { Effect, Redacted } from "effect"
import type { PetstoreRuntime } from "./petstore.js"

// An account for one of the host's users, and its first API key: the key is shown once, here.
// Keep `account.id` and `keyId`; hand `key` to the user (the store keeps only its hash).
export const createAccount = (runtime: PetstoreRuntime) =>
  runtime.runPromise(
    Effect.gen(function*() {
      const accounts = yield* Accounts.Accounts
      const { account, key } = yield* accounts.create({ plan: "free" })
      return { accountId: account.id, keyId: key.id, key: Redacted.value(key.key) }
    })
  )
