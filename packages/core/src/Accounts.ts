/**
 * Accounts and their API keys: create, issue (shown once), verify, list, revoke, rotate, expire.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { AccountFilter, AccountStatus } from "./AccountListing.js"
import { type Account, type AccountChange, AccountStore, type KeyRecord } from "./AccountStore.js"
import { decodeAccountCursor, encodeAccountCursor } from "./AccountCursor.js"
import * as ApiKey from "./ApiKey.js"
import {
  AccountNotFound,
  InvalidExpiry,
  type InvalidCursor,
  type InvalidPlan,
  KeyAlreadyRotated,
  KeyNotFound,
  type StoreUnavailable
} from "./Errors.js"
import { limitsFor, type Plan, type PlanLimits } from "./Plan.js"
import { CursorSigner, make as makeSigner } from "./PageCursor.js"
import { randomId, SecureRandom } from "./SecureRandom.js"

/** Who a verified key belongs to, and the limits that apply. */
export interface Principal {
  readonly accountId: string
  readonly keyId: string
  readonly limits: PlanLimits
  /** The account is suspended: the key is known and active, but the request is refused (403). */
  readonly suspended: boolean
}

/** A page of accounts, and the cursor of the next one when more may follow. */
export interface AccountPage {
  readonly accounts: ReadonlyArray<Account>
  readonly next: string | undefined
}

/** What an account update asks for; a field left out stays as it is. */
export interface AccountUpdate {
  readonly name?: string | null | undefined
  readonly plan?: Plan | undefined
  /** Enterprise only: required when the plan becomes enterprise, refused for the other plans. */
  readonly limits?: PlanLimits | undefined
  readonly status?: AccountStatus | undefined
}

/** A key as it is handed out, once. */
export interface IssuedKey {
  readonly id: string
  readonly accountId: string
  readonly key: Redacted.Redacted<string>
  readonly prefix: string
  readonly expiresAt: number | null
}

/** Where a key stands at a given instant. */
export type KeyState = "active" | "expired" | "revoked"

/** What may be shown about a key after its creation. */
export interface KeyMetadata {
  readonly id: string
  readonly accountId: string
  readonly prefix: string
  readonly createdAt: number
  readonly expiresAt: number | null
  readonly revokedAt: number | null
  /** The key that replaced this one, once it was rotated. */
  readonly rotatedTo: string | null
  readonly state: KeyState
}

/** Where `key` stands at `now`: revoked, expired or active. @category models */
export const keyState = (key: KeyRecord, now: number): KeyState =>
  // A revocation is effective at once wherever it is read, whatever the reader's clock says.
  key.revokedAt !== null
    ? "revoked"
    : key.expiresAt !== null && key.expiresAt <= now
    ? "expired"
    : "active"

/** The accounts service: create accounts, issue, verify, list, revoke, rotate and expire their keys. @category services */
export class Accounts extends Context.Service<
  Accounts,
  {
    readonly create: (input: {
      readonly plan: Plan
      readonly limits?: PlanLimits | undefined
    }) => Effect.Effect<{ readonly account: Account; readonly key: IssuedKey }, InvalidPlan | StoreUnavailable>
    readonly findAccount: (id: string) => Effect.Effect<Account, AccountNotFound | StoreUnavailable>
    readonly countAccounts: Effect.Effect<number, StoreUnavailable>
    /** A page of accounts, newest first, filtered; `cursor` is the `next` of the page before. */
    readonly list: (
      query: AccountFilter & { readonly limit: number; readonly cursor?: string | undefined }
    ) => Effect.Effect<AccountPage, InvalidCursor | StoreUnavailable>
    /**
     * Changes the account's name, plan (and limits, by the rules of `create`) or status; the account
     * as it now is. A suspended account's keys are refused by `verify`'s principal (`suspended`).
     */
    readonly update: (
      id: string,
      update: AccountUpdate
    ) => Effect.Effect<Account, AccountNotFound | InvalidPlan | StoreUnavailable>
    readonly issueKey: (
      accountId: string,
      options?: { readonly expiresAt?: number | undefined }
    ) => Effect.Effect<IssuedKey, AccountNotFound | InvalidExpiry | StoreUnavailable>
    /**
     * The principal of an active key at the Clock's time; `None` for anything else (unknown,
     * malformed, revoked, expired). On every request's path: plain steps after the store's lookups
     * (no generator).
     */
    readonly verify: (token: string) => Effect.Effect<Option.Option<Principal>, StoreUnavailable>
    readonly listKeys: (accountId: string) => Effect.Effect<ReadonlyArray<KeyMetadata>, AccountNotFound | StoreUnavailable>
    /** Revocation is effective at once. */
    readonly revoke: (keyId: string) => Effect.Effect<void, KeyNotFound | StoreUnavailable>
    /**
     * A new key for the same account; the old one keeps working for `graceSeconds` (default 0), then
     * is refused. A key is rotated once: rotating it again (during its grace or after) fails with
     * `KeyAlreadyRotated` naming its successor, and issues nothing. Unknown, revoked or expired keys
     * that were never rotated: `KeyNotFound`.
     */
    readonly rotate: (
      keyId: string,
      options?: { readonly graceSeconds?: number | undefined }
    ) => Effect.Effect<IssuedKey, KeyNotFound | KeyAlreadyRotated | StoreUnavailable>
  }
>()("@petstore/core/Accounts") {
  /** Keys get the prefix of `environment` (`psk_live_` or `psk_test_`). */
  static readonly layer = (options: { readonly environment: ApiKey.KeyEnvironment }) =>
    Layer.effect(Accounts, make(options))
}

/**
 * What `update` asks of the store: the plan's limits resolved by the rules of creation. Limits alone
 * are for an enterprise account (its plan stays); with a plan, they follow `limitsFor`.
 */
const resolveChange = (current: Account, update: AccountUpdate): Effect.Effect<AccountChange, InvalidPlan> => {
  const plan = update.plan ?? current.plan
  // An enterprise account that stays enterprise keeps its limits unless new ones are given.
  const limits = update.limits ?? (plan === "enterprise" && current.plan === "enterprise" ? current.limits : undefined)
  const planChange = update.plan === undefined && update.limits === undefined ? undefined : limitsFor(plan, limits)
  if (planChange !== undefined && Result.isFailure(planChange)) return Effect.fail(planChange.failure)
  return Effect.succeed({
    name: update.name,
    plan: planChange === undefined ? undefined : { plan, limits: planChange.success },
    status: update.status
  })
}

/** `list` and `update` of the accounts service, over the store and the listing's cursor signer. */
const listAndUpdate = (
  store: AccountStore["Service"],
  cursors: CursorSigner["Service"],
  findAccount: (id: string) => Effect.Effect<Account, AccountNotFound | StoreUnavailable>
): Pick<Accounts["Service"], "list" | "update"> => ({
  list: ({ cursor, limit, ...filter }) =>
    Effect.gen(function*() {
      const after = cursor === undefined ? undefined : yield* decodeAccountCursor(cursors, cursor, filter)
      // One more than asked: whether a next page exists without a second read.
      const found = yield* store.listAccounts({ ...filter, after, limit: limit + 1 })
      const page = found.slice(0, limit)
      const last = page.at(-1)
      return { accounts: page, next: found.length > limit && last !== undefined ? encodeAccountCursor(cursors, last, filter) : undefined }
    }),
  update: (id, update) =>
    Effect.gen(function*() {
      const current = yield* findAccount(id)
      const change = yield* resolveChange(current, update)
      const updated = yield* store.updateAccount(id, change)
      if (Option.isNone(updated)) return yield* new AccountNotFound({ id })
      return updated.value
    }),
})

/** Builds the accounts service over the account store and the secure random source. @category constructors */
export const make = (options: { readonly environment: ApiKey.KeyEnvironment }) =>
  Effect.gen(function*() {
    const store = yield* AccountStore
    const random = yield* SecureRandom
    const withRandom = Effect.provideService(SecureRandom, random)

    const newKey = (accountId: string, now: number, expiresAt: number | null) =>
      withRandom(Effect.all([randomId("key"), ApiKey.generate(options.environment)])).pipe(
        Effect.map(([id, generated]) => ({
          record: {
            id,
            accountId,
            hash: generated.hash,
            prefix: generated.prefix,
            createdAt: now,
            expiresAt,
            revokedAt: null,
            rotatedTo: null
          } satisfies KeyRecord,
          issued: { id, accountId, key: generated.key, prefix: generated.prefix, expiresAt } satisfies IssuedKey
        }))
      )

    const findAccount = (id: string) =>
      Effect.flatMap(store.findAccount(id), Option.match({
        onNone: () => Effect.fail(new AccountNotFound({ id })),
        onSome: Effect.succeed
      }))

    // A rotated key says so (naming its successor) whatever its state; otherwise only an active key can be rotated.
    const findRotatableKey = (id: string, now: number) =>
      Effect.flatMap(store.findKey(id), (key): Effect.Effect<KeyRecord, KeyNotFound | KeyAlreadyRotated> =>
        Option.isNone(key)
          ? Effect.fail(new KeyNotFound({ id }))
          : key.value.rotatedTo !== null
          ? Effect.fail(new KeyAlreadyRotated({ id, successorId: key.value.rotatedTo }))
          : keyState(key.value, now) === "active"
          ? Effect.succeed(key.value)
          : Effect.fail(new KeyNotFound({ id })))

    const principalOf = (key: KeyRecord) => (account: Account): Principal => ({
      accountId: account.id,
      keyId: key.id,
      limits: account.limits,
      suspended: account.status === "suspended"
    })
    // The listing's cursors are signed with the stores' cursor secret when there is one (shared by
    // every instance of a shared store), else with a secret of this process.
    const signer = yield* Effect.serviceOption(CursorSigner)
    const cursors = Option.isSome(signer) ? signer.value : makeSigner(yield* random.bytes(32))

    // Plain steps (`Effect.suspend`, `flatMap`, `map`) rather than a generator: this runs on every
    // request.
    const clock = yield* Clock.Clock
    const NONE = Effect.succeed(Option.none<Principal>())
    const verify = (token: string): Effect.Effect<Option.Option<Principal>, StoreUnavailable> =>
      Effect.suspend(() => {
        if (!ApiKey.isWellFormed(token)) return NONE
        const now = clock.currentTimeMillisUnsafe()
        return Effect.flatMap(store.findKeyByHash(ApiKey.hash(token)), (key) =>
          Option.isNone(key) || keyState(key.value, now) !== "active"
            ? NONE
            : Effect.map(store.findAccount(key.value.accountId), Option.map(principalOf(key.value))))
      })

    return Accounts.of({
      create: ({ limits, plan }) =>
        Effect.gen(function*() {
          const resolved = limitsFor(plan, limits)
          if (Result.isFailure(resolved)) return yield* resolved.failure
          const now = yield* Clock.currentTimeMillis
          const id = yield* withRandom(randomId("acc"))
          const account: Account = { id, name: null, plan, limits: resolved.success, status: "active", createdAt: now }
          const key = yield* newKey(id, now, null)
          yield* store.insertAccount(account, key.record)
          return { account, key: key.issued }
        }),
      findAccount,
      countAccounts: store.countAccounts,
      ...listAndUpdate(store, cursors, findAccount),
      issueKey: (accountId, opts) =>
        Effect.gen(function*() {
          yield* findAccount(accountId)
          const now = yield* Clock.currentTimeMillis
          const expiresAt = opts?.expiresAt
          if (expiresAt !== undefined && expiresAt <= now) return yield* new InvalidExpiry({ expiresAt, now })
          const key = yield* newKey(accountId, now, expiresAt ?? null)
          yield* store.insertKey(key.record)
          return key.issued
        }),
      verify,
      listKeys: (accountId) =>
        Effect.gen(function*() {
          yield* findAccount(accountId)
          const now = yield* Clock.currentTimeMillis
          const keys = yield* store.listKeys(accountId)
          return keys.map((k): KeyMetadata => ({
            id: k.id,
            accountId: k.accountId,
            prefix: k.prefix,
            createdAt: k.createdAt,
            expiresAt: k.expiresAt,
            revokedAt: k.revokedAt,
            rotatedTo: k.rotatedTo,
            state: keyState(k, now)
          }))
        }),
      revoke: (keyId) => Effect.flatMap(Clock.currentTimeMillis, (now) => store.revokeKey(keyId, now)),
      rotate: (keyId, opts) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const old = yield* findRotatableKey(keyId, now)
          const key = yield* newKey(old.accountId, now, null)
          // The store refuses a rotation that another one (here or on another instance) got in before.
          yield* store.rotateKey(keyId, now + Math.max(0, opts?.graceSeconds ?? 0) * 1000, key.record)
          return key.issued
        })
    })
  })
