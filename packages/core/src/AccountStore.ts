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
import { type AccountQuery, type AccountStatus, isAfter, matches, newestFirst } from "./AccountListing.js"
import type { Plan, PlanLimits } from "./Plan.js"

/** An account as stored: its name, its plan and the limits that plan gives, and its status. */
export interface Account {
  readonly id: string
  /** A name for people, or null. */
  readonly name: string | null
  readonly plan: Plan
  readonly limits: PlanLimits
  /** `suspended`: its keys are refused (403) until it is `active` again. */
  readonly status: AccountStatus
  readonly createdAt: number
}

/**
 * What an update changes of an account; a field left out stays as it is. `plan` and `limits` go
 * together (the limits the plan gives, resolved by `Accounts`).
 */
export interface AccountChange {
  readonly name?: string | null | undefined
  readonly plan?: { readonly plan: Plan; readonly limits: PlanLimits } | undefined
  readonly status?: AccountStatus | undefined
}

/** `account` with `change` applied. @category constructors */
export const applyChange = (account: Account, change: AccountChange): Account => ({
  ...account,
  ...(change.name === undefined ? {} : { name: change.name }),
  ...(change.plan === undefined ? {} : { plan: change.plan.plan, limits: change.plan.limits }),
  ...(change.status === undefined ? {} : { status: change.status })
})

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
    /**
     * At most `query.limit` accounts passing the query's filters, newest first (`createdAt`
     * descending, then `id` descending), after `query.after` when given.
     */
    readonly listAccounts: (query: AccountQuery) => Effect.Effect<ReadonlyArray<Account>, StoreUnavailable>
    /**
     * Applies `change` to the account, atomically; the account as it now is, or none when there is
     * no such account. Every instance sees the change within the bound its key lookups have
     * (`findAccount` is on every request's path: the limits and the status it answers are used).
     */
    readonly updateAccount: (id: string, change: AccountChange) => Effect.Effect<Option.Option<Account>, StoreUnavailable>
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
    listAccounts: (query) =>
      Effect.sync(() =>
        [...accounts.values()]
          .filter((a) => matches(a, query) && isAfter(a, query.after))
          .sort(newestFirst)
          .slice(0, query.limit)
      ),
    updateAccount: (id, change) =>
      Effect.sync(() => {
        const account = accounts.get(id)
        if (account === undefined) return Option.none()
        const changed = applyChange(account, change)
        accounts.set(id, changed)
        return Option.some(changed)
      }),
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
