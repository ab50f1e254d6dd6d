/**
 * Handlers of the admin API.
 *
 * @since 1.0.0
 */
import { Accounts } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { AdminGroup } from "../AdminApi.js"
import { InvalidInput } from "../ErrorResponse.js"
import type { GroupHandlers } from "./routes.js"

/** What admin handlers know of the request. */
export interface AdminContext {
  readonly path: string
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

const issued = (key: Accounts.IssuedKey) => ({
  id: key.id,
  key: Redacted.value(key.key),
  prefix: key.prefix,
  expiresAt: iso(key.expiresAt)
})

/** @category handlers */
export const handlers = Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  const result: GroupHandlers<typeof AdminGroup, AdminContext> = {
    createAccount: ({ payload }) =>
      Effect.map(accounts.create({ plan: payload.plan, limits: payload.limits }), ({ account, key }) => ({
        value: {
          id: account.id,
          plan: account.plan,
          limits: account.limits,
          key: Redacted.value(key.key),
          keyId: key.id,
          prefix: key.prefix
        }
      })),
    createKey: ({ path, payload }) => {
      const expiresAt = payload.expiresAt === undefined ? undefined : Date.parse(payload.expiresAt)
      if (expiresAt !== undefined && !Number.isFinite(expiresAt)) {
        return Effect.fail(new InvalidInput({ message: "body expiresAt: is not a valid date" }))
      }
      return Effect.map(accounts.issueKey(path.accountId, { expiresAt }), (key) => ({ value: issued(key) }))
    },
    listKeys: ({ path }) =>
      Effect.map(accounts.listKeys(path.accountId), (keys) => ({
        value: keys.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          state: k.state,
          createdAt: new Date(k.createdAt).toISOString(),
          expiresAt: iso(k.expiresAt),
          revokedAt: iso(k.revokedAt)
        }))
      })),
    rotateKey: ({ path, payload }) =>
      Effect.map(accounts.rotate(path.keyId, { graceSeconds: payload.graceSeconds }), (key) => ({ value: issued(key) })),
    revokeKey: ({ path }) => Effect.as(accounts.revoke(path.keyId), { value: undefined })
  }
  return result
})
