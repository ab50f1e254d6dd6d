/**
 * Storage of accounts and API keys (hashes only). Adapters implement this interface.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AccountNotFound, KeyAlreadyRotated, KeyNotFound, type StoreUnavailable } from "./Errors.js"
import type { Plan, PlanLimits } from "./Plan.js"

/** An account as stored: its plan and the limits that plan gives. */
export interface Account {
  readonly id: string
  readonly plan: Plan
  readonly limits: PlanLimits
  readonly createdAt: number
}

/** A key as stored: never the key itself, only its SHA-256 and display prefix. Times are epoch ms. */
export interface KeyRecord {
  readonly id: string
  readonly accountId: string
  readonly hash: string
  readonly prefix: string
  readonly createdAt: number
  readonly expiresAt: number | null
  readonly revokedAt: number | null
  /** The id of the key that replaced this one when it was rotated; null while it was never rotated. */
  readonly rotatedTo: string | null
}

/** The port of the accounts and their keys, which each store implements. @category services */
export class AccountStore extends Context.Service<
  AccountStore,
  {
    /** Stores an account together with its first key, atomically. */
    readonly insertAccount: (account: Account, firstKey: KeyRecord) => Effect.Effect<void, StoreUnavailable>
    /** The account; on every request's path, like `findKeyByHash`. */
    readonly findAccount: (id: string) => Effect.Effect<Option.Option<Account>, StoreUnavailable>
    readonly countAccounts: Effect.Effect<number, StoreUnavailable>
    readonly insertKey: (key: KeyRecord) => Effect.Effect<void, AccountNotFound | StoreUnavailable>
    readonly findKey: (id: string) => Effect.Effect<Option.Option<KeyRecord>, StoreUnavailable>
    /**
     * The key with this hash. On every request's path: a store that can answer without waiting
     * (from memory, a cache, or a synchronous read) answers in one synchronous step
     * (`Effect.sync`). A store whose cache entries age reads the Clock it was built with.
     */
    readonly findKeyByHash: (hash: string) => Effect.Effect<Option.Option<KeyRecord>, StoreUnavailable>
    readonly listKeys: (accountId: string) => Effect.Effect<ReadonlyArray<KeyRecord>, StoreUnavailable>
    /** Sets `revokedAt` (keeps the earliest if already revoked). */
    readonly revokeKey: (id: string, at: number) => Effect.Effect<void, KeyNotFound | StoreUnavailable>
    /**
     * Shortens the old key's life to `oldExpiresAt`, marks it replaced by `newKey` (`rotatedTo`) and
     * stores the new key, atomically, and only when the old key was never rotated: of concurrent
     * rotations of one key (on every instance of a shared store) exactly one succeeds; the others
     * fail with `KeyAlreadyRotated` naming its successor and write nothing.
     */
    readonly rotateKey: (
      oldId: string,
      oldExpiresAt: number,
      newKey: KeyRecord
    ) => Effect.Effect<void, KeyNotFound | KeyAlreadyRotated | StoreUnavailable>
  }
>()("@petstore/core/AccountStore") {
  static readonly layerMemory = Layer.sync(AccountStore, () => makeMemory())
}

/**
 * The failure of a rotation of `oldId` a store refused: `KeyAlreadyRotated` when the key has a
 * successor, `KeyNotFound` when there is no such key (`successorId` null or undefined).
 *
 * @category constructors
 */
export const refusedRotation = (
  oldId: string,
  successorId: string | null | undefined
): Effect.Effect<never, KeyNotFound | KeyAlreadyRotated> =>
  Effect.fail(
    successorId === null || successorId === undefined
      ? new KeyNotFound({ id: oldId })
      : new KeyAlreadyRotated({ id: oldId, successorId })
  )

/** The accounts and keys in process memory. @category constructors */
export const makeMemory = (): AccountStore["Service"] => {
  const accounts = new Map<string, Account>()
  const keys = new Map<string, KeyRecord>()
  const byHash = new Map<string, KeyRecord>()
  const put = (key: KeyRecord) => {
    keys.set(key.id, key)
    byHash.set(key.hash, key)
  }
  return {
    insertAccount: (account, firstKey) =>
      Effect.sync(() => {
        accounts.set(account.id, account)
        put(firstKey)
      }),
    // Lookups are on every request's path: answerable at once, in one synchronous step.
    findAccount: (id) => Effect.sync(() => Option.fromNullishOr(accounts.get(id))),
    countAccounts: Effect.sync(() => accounts.size),
    insertKey: (key) =>
      accounts.has(key.accountId)
        ? Effect.sync(() => put(key))
        : Effect.fail(new AccountNotFound({ id: key.accountId })),
    findKey: (id) => Effect.sync(() => Option.fromNullishOr(keys.get(id))),
    findKeyByHash: (hash) => Effect.sync(() => Option.fromNullishOr(byHash.get(hash))),
    listKeys: (accountId) =>
      Effect.sync(() => [...keys.values()].filter((k) => k.accountId === accountId)),
    revokeKey: (id, at) =>
      Effect.suspend(() => {
        const key = keys.get(id)
        if (key === undefined) return Effect.fail(new KeyNotFound({ id }))
        if (key.revokedAt === null || at < key.revokedAt) put({ ...key, revokedAt: at })
        return Effect.void
      }),
    rotateKey: (oldId, oldExpiresAt, newKey) =>
      Effect.suspend(() => {
        const old = keys.get(oldId)
        if (old === undefined || old.rotatedTo !== null) return refusedRotation(oldId, old?.rotatedTo)
        put({
          ...old,
          expiresAt: old.expiresAt === null ? oldExpiresAt : Math.min(old.expiresAt, oldExpiresAt),
          rotatedTo: newKey.id
        })
        put(newKey)
        return Effect.void
      })
  }
}
