/**
 * `AccountStore` on PostgreSQL (key hashes only), shared by every instance. Verifying a key is on
 * every request's path, so keys found by hash and accounts are kept in memory:
 * - a key changed by this instance (revoke, rotate), or an account (name, plan, status), is dropped
 *   from its cache once the change committed: refused (or limited anew) here at once;
 * - a key or an account changed by another instance: every change sends `NOTIFY petstore_keys` with
 *   the key's hash (or `account:` and the account's id) in its own transaction, and every instance
 *   LISTENs and drops that entry (milliseconds). Should notifications be lost (the listening
 *   connection down), a cached key or account is also never used after `keyCacheMillis` (1 s): that
 *   is the published bound for a revocation, a suspension or a new plan to reach every instance.
 * Unknown hashes are not cached, so a key created anywhere works at once.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { AccountStore, BoundedCache, Errors } from "@petstore/core"
import * as Table from "./internal/table.js"
import { Database, queryOn, statement } from "./Database.js"

/** How long keys are cached before the database is asked again. */
export interface AccountStorePgOptions {
  /** The longest a cached key is used without reading it again (the bound on missed notifications). */
  readonly keyCacheMillis: number
}

/** The account store's defaults. */
export const DEFAULT_OPTIONS: AccountStorePgOptions = { keyCacheMillis: 1_000 }

/** The channel key and account changes are announced on; the payload is the key's hash, or `account:` and the account's id. */
export const KEY_CHANNEL = "petstore_keys"

/** Above this many entries a cache starts over (it only saves reads). */
const MAX_CACHED = 100_000

interface CachedKey {
  readonly key: AccountStore.KeyRecord
  readonly at: number
}

interface CachedAccount {
  readonly account: AccountStore.Account
  readonly at: number
}

/** The payload of an account's change on `KEY_CHANNEL` (a key's hash never has a colon). */
const ACCOUNT_PAYLOAD = "account:"

/** `accounts`, each column with what it holds of an `Account`: its statements' and `Import`'s. */
export const ACCOUNTS: Table.Table<AccountStore.Account> = {
  name: "accounts",
  columns: [
    ["id", "text", "id"],
    // An account of an export made before names and statuses: nameless and active.
    ["name", "text", (a) => a.name ?? null],
    ["plan", "text", "plan"],
    ["per_minute", "int4", (a) => a.limits.perMinute],
    ["per_day", "int4", (a) => a.limits.perDay],
    ["status", "text", (a) => a.status ?? "active"],
    ["created_at", "int8", "createdAt"]
  ]
}
/** `api_keys`, each column with the `KeyRecord` field it holds: its statements' and `Import`'s. */
export const KEYS: Table.Table<AccountStore.KeyRecord> = {
  name: "api_keys",
  columns: [
    ["id", "text", "id"],
    ["account_id", "text", "accountId"],
    ["hash", "text", "hash"],
    ["prefix", "text", "prefix"],
    ["created_at", "int8", "createdAt"],
    ["expires_at", "int8", "expiresAt"],
    ["revoked_at", "int8", "revokedAt"],
    ["rotated_to", "text", "rotatedTo"]
  ]
}
const KEY_COLUMNS = Table.selectList(KEYS.columns)
const KEY_NAMES = Table.names(KEYS.columns)
const keyValues = (key: AccountStore.KeyRecord) => Table.rowValues(KEYS.columns, key)

/** An account's row, read under its fields' names (its limits are two columns). */
type AccountRow = Omit<AccountStore.Account, "limits"> & AccountStore.Account["limits"] & { readonly pg_notify?: unknown }

/** The account of a row (the notification's column, when the row has one, left out). */
const accountOf = ({ perDay, perMinute, pg_notify: _, ...account }: AccountRow): AccountStore.Account =>
  ({ ...account, limits: { perMinute, perDay } })

const INSERT_ACCOUNT = statement(`INSERT INTO accounts (${Table.names(ACCOUNTS.columns)}) VALUES (${Table.parameters(ACCOUNTS.columns)})`)
const INSERT_KEY = statement(`INSERT INTO api_keys (${KEY_NAMES}) VALUES (${Table.parameters(KEYS.columns)})`)
// The account check and the insert are one statement.
const INSERT_KEY_OF_ACCOUNT = statement(
  `INSERT INTO api_keys (${KEY_NAMES}) SELECT ${Table.parameters(KEYS.columns)}
   WHERE EXISTS (SELECT 1 FROM accounts WHERE id = $2) RETURNING id`
)
const ACCOUNT_COLUMNS = `id, name, plan, per_minute AS "perMinute", per_day AS "perDay", status, created_at AS "createdAt"`
const ACCOUNT_BY_ID = statement(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`)
// Newest first after a position, ids in byte order (COLLATE "C": the index's and the other stores'
// order); each filter applies when given. `q`: an id prefix, or a part of the name with ASCII
// letters folded (translate, not lower(), which would fold other letters too, by the locale).
const FOLD = `'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'`
const LIST_ACCOUNTS = statement(
  `SELECT ${ACCOUNT_COLUMNS} FROM accounts
   WHERE ($1::text IS NULL OR plan = $1) AND ($2::text IS NULL OR status = $2)
     AND ($3::text IS NULL OR starts_with(id, $3) OR strpos(translate(name, ${FOLD}), translate($3, ${FOLD})) > 0)
     AND ($4::int8 IS NULL OR created_at < $4 OR (created_at = $4 AND (id COLLATE "C") < $5))
   ORDER BY created_at DESC, (id COLLATE "C") DESC LIMIT $6`
)
// A field not given (NULL; the name: $2 false) stays as it is; the change is announced in its transaction.
const UPDATE_ACCOUNT = statement(
  `WITH changed AS (
     UPDATE accounts SET name = CASE WHEN $2 THEN $3 ELSE name END, plan = coalesce($4, plan),
       per_minute = coalesce($5, per_minute), per_day = coalesce($6, per_day), status = coalesce($7, status)
     WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}
   )
   SELECT changed.*, pg_notify('${KEY_CHANNEL}', '${ACCOUNT_PAYLOAD}' || changed.id) FROM changed`
)
const ACCOUNT_COUNT = statement("SELECT count(*)::int8 AS n FROM accounts")
const KEY_BY_ID = statement(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`)
const KEY_BY_HASH = statement(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`)
const KEYS_OF_ACCOUNT = statement(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`)
// A key change returns the hash it changed and announces it, in its own transaction.
const REVOKE = statement(
  `WITH changed AS (
     UPDATE api_keys SET revoked_at = LEAST(coalesce(revoked_at, $2), $2) WHERE id = $1 RETURNING hash
   )
   SELECT hash, pg_notify('${KEY_CHANNEL}', hash) FROM changed`
)
// Only a key never rotated. Of concurrent rotations of one key (from any instance), the first takes
// the row's lock; the others wait for it to commit, then find the row marked and change nothing.
const ROTATE_OUT = statement(
  `WITH changed AS (
     UPDATE api_keys SET expires_at = LEAST(coalesce(expires_at, $2), $2), rotated_to = $3
     WHERE id = $1 AND rotated_to IS NULL RETURNING hash
   )
   SELECT hash, pg_notify('${KEY_CHANNEL}', hash) FROM changed`
)
const SUCCESSOR_OF = statement("SELECT rotated_to FROM api_keys WHERE id = $1")


/** The listing and the update of accounts; `forget` drops a changed account from the cache once committed. */
const listAndUpdate = (
  db: Database["Service"],
  forget: (payload: string) => void
): Pick<AccountStore.AccountStore["Service"], "listAccounts" | "updateAccount"> => ({
  listAccounts: ({ after, limit, plan, q, status }) =>
    Effect.map(
      db.query<AccountRow>(LIST_ACCOUNTS, [plan ?? null, status ?? null, q ?? null, after?.createdAt ?? null, after?.id ?? null, limit]),
      (rows) => rows.map(accountOf)
    ),
  updateAccount: (id, change) =>
    Effect.map(
      db.query<AccountRow>(UPDATE_ACCOUNT, [
        id,
        change.name !== undefined,
        change.name ?? null,
        change.plan?.plan ?? null,
        change.plan?.limits.perMinute ?? null,
        change.plan?.limits.perDay ?? null,
        change.status ?? null
      ]),
      (rows) => {
        // Committed: dropped here at once, as a changed key is.
        forget(`${ACCOUNT_PAYLOAD}${id}`)
        return Option.map(Option.fromNullishOr(rows[0]), accountOf)
      }
    )
})

/** The account store on PostgreSQL. @category constructors */
export const make = (
  options: AccountStorePgOptions
): Effect.Effect<AccountStore.AccountStore["Service"], never, Database | Scope.Scope> =>
  Effect.gen(function*() {
    const db = yield* Database
    // The store's Clock, read when a lookup runs (a TestClock under test): cached keys age by it.
    const clock = yield* Clock.Clock
    // Accounts by id. An account is wrong once updated (name, plan, status), by this instance or
    // another. Dropped as keys are: by `forget` after this instance's change committed or on another
    // instance's NOTIFY, all when the listener (re)starts, and not used after `keyCacheMillis`.
    const accounts = BoundedCache.make<string, CachedAccount>(MAX_CACHED)
    // Keys found by hash (unknown hashes are not kept). A key is wrong once revoked or expired early
    // (rotation), by this instance or another. Dropped: by `forget` after this instance's change
    // committed; by `forget` on another instance's NOTIFY; all of them when the listener (re)starts;
    // and, whatever happens to notifications, not used after `keyCacheMillis` (`fresh`). Also dropped
    // when the cache starts over.
    const keysByHash = BoundedCache.make<string, CachedKey>(MAX_CACHED)
    // Moves at every invalidation: a lookup that was in flight across one does not cache what it read.
    let generation = 0
    const forget = (payload: string | undefined) => {
      generation++
      if (payload === undefined) {
        keysByHash.clear()
        accounts.clear()
      } else if (payload.startsWith(ACCOUNT_PAYLOAD)) accounts.delete(payload.slice(ACCOUNT_PAYLOAD.length))
      else keysByHash.delete(payload)
    }

    // Every (re)start of the listener empties the cache: notifications may have been missed.
    yield* db.listen(KEY_CHANNEL, (hash) => forget(hash), () => forget(undefined))

    const fresh = <C extends { readonly at: number }>(cached: C | undefined, now: number): cached is C =>
      cached !== undefined && now - cached.at < options.keyCacheMillis && now >= cached.at

    const lookUpKey = (hash: string, now: number) => {
      const before = generation
      return Effect.map(db.query<AccountStore.KeyRecord>(KEY_BY_HASH, [hash]), (rows) => {
        const found = Option.fromNullishOr(rows[0])
        if (Option.isSome(found) && generation === before) keysByHash.set(hash, { key: found.value, at: now })
        return found
      })
    }
    const lookUpAccount = (id: string, now: number) => {
      const before = generation
      return Effect.map(db.query<AccountRow>(ACCOUNT_BY_ID, [id]), (rows) => {
        const found = Option.map(Option.fromNullishOr(rows[0]), accountOf)
        if (Option.isSome(found) && generation === before) accounts.set(id, { account: found.value, at: now })
        return found
      })
    }

    // Cached answers are answered in the caller's step (`Effect.suspend`): no fiber is forked on a request's path.
    const keyByHash = (hash: string) =>
      Effect.suspend(() => {
        const now = clock.currentTimeMillisUnsafe()
        const cached = keysByHash.get(hash)
        return fresh(cached, now) ? Effect.succeed(Option.some(cached.key)) : lookUpKey(hash, now)
      })

    /** Drops the changed keys from this instance's cache once their change committed. */
    const forgetChanged = (rows: ReadonlyArray<{ readonly hash: string }>) => {
      for (const row of rows) forget(row.hash)
      return rows.length
    }

    return AccountStore.AccountStore.of({
      insertAccount: (account, firstKey) =>
        db.transaction(async (client) => {
          await queryOn(client, INSERT_ACCOUNT, Table.rowValues(ACCOUNTS.columns, account))
          await queryOn(client, INSERT_KEY, keyValues(firstKey))
        }),
      findAccount: (id) =>
        Effect.suspend(() => {
          const now = clock.currentTimeMillisUnsafe()
          const cached = accounts.get(id)
          return fresh(cached, now) ? Effect.succeed(Option.some(cached.account)) : lookUpAccount(id, now)
        }),
      ...listAndUpdate(db, forget),
      countAccounts: Effect.map(db.query<{ n: number }>(ACCOUNT_COUNT, []), (rows) => rows[0]!.n),
      insertKey: (key) =>
        Effect.flatMap(
          db.query(INSERT_KEY_OF_ACCOUNT, keyValues(key)),
          (rows) => rows.length === 0 ? Effect.fail(new Errors.AccountNotFound({ id: key.accountId })) : Effect.void
        ),
      findKey: (id) => Effect.map(db.query<AccountStore.KeyRecord>(KEY_BY_ID, [id]), (rows) => Option.fromNullishOr(rows[0])),
      findKeyByHash: keyByHash,
      listKeys: (accountId) => db.query<AccountStore.KeyRecord>(KEYS_OF_ACCOUNT, [accountId]),
      revokeKey: (id, at) =>
        Effect.flatMap(
          Effect.map(db.query<{ hash: string }>(REVOKE, [id, at]), forgetChanged),
          (changed) => changed === 0 ? Effect.fail(new Errors.KeyNotFound({ id })) : Effect.void
        ),
      rotateKey: (oldId, oldExpiresAt, newKey) =>
        Effect.flatMap(
          db.transaction(async (client) => {
            // The new key only when the old one exists and was never rotated: the check and both
            // writes are one transaction. Refused: what stopped it (the key's successor, or no key),
            // read after the rotation that got in first committed.
            const changed = await queryOn<{ hash: string }>(client, ROTATE_OUT, [oldId, oldExpiresAt, newKey.id])
            if (changed.length === 0) {
              const rows = await queryOn<{ rotated_to: string | null }>(client, SUCCESSOR_OF, [oldId])
              return { changed, refused: rows[0]?.rotated_to }
            }
            await queryOn(client, INSERT_KEY, keyValues(newKey))
            return { changed, refused: undefined }
          }),
          ({ changed, refused }) =>
            forgetChanged(changed) === 0 ? AccountStore.refusedRotation(oldId, refused) : Effect.void
        )
    })
  })

/** The account store on PostgreSQL, as a layer. @category layers */
export const layer = (
  options: Partial<AccountStorePgOptions> = {}
): Layer.Layer<AccountStore.AccountStore, never, Database> =>
  Layer.effect(AccountStore.AccountStore, make({ ...DEFAULT_OPTIONS, ...options }))
