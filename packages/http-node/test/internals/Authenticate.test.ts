/** Stage authenticate: the principal of an active key, none for anything else; it never answers. */
import { describe, expect, it } from "@effect/vitest"
import { Accounts, AccountStore, SecureRandom } from "@petstore/core"
import { Effect, Layer, Redacted } from "effect"
import * as Authenticate from "../../src/internal/stages/authenticate.js"
import { exchange, outcomeAtOnce } from "./support/Stages.js"

const Live = Accounts.Accounts.layer({ environment: "staging" }).pipe(
  Layer.provide(AccountStore.AccountStore.layerMemory),
  Layer.provide(SecureRandom.SecureRandom.Live)
)

describe("stage authenticate", () => {
  it.effect("a valid key's principal goes on the exchange; no key, a malformed or an unknown one: none; it always goes on", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts.Accounts
      const { account, key } = yield* accounts.create({ plan: "pro" })
      const stage = Authenticate.make(accounts)
      const valid = exchange({ headers: { authorization: `Bearer ${Redacted.value(key.key)}` } })
      expect(outcomeAtOnce(stage, valid)).toBeUndefined()
      expect(valid.principal).toStrictEqual({ accountId: account.id, keyId: key.id, limits: account.limits, suspended: false })
      for (const authorization of [undefined, "Basic abc", "Bearer psk_test_unknownunknownunknown", "Bearer  two spaces"]) {
        const other = exchange(authorization === undefined ? {} : { headers: { authorization } })
        expect(outcomeAtOnce(stage, other)).toBeUndefined()
        expect(other.principal).toBeUndefined()
      }
    }).pipe(Effect.provide(Live)))
})
