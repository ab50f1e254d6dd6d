/**
 * `AccountStore` on SQLite (key hashes only). Verifying a key is on every request's path, so keys
 * found by hash and accounts are kept in memory:
 * - keys change (revoke, rotate) and accounts change (name, plan, status) through this store,
 *   which drops the cache in the same synchronous step as its commit, or
 *   through another process on the same file (the CLI): `PRAGMA data_version`, which moves when
 *   another connection commits, is read again before a lookup once the last reading is
 *   `pollMillis` old, and both caches are dropped when it moved. A key revoked or an account
 *   suspended elsewhere is refused here within `pollMillis` (default 250 ms).
 * Unknown hashes are not cached, so a key created elsewhere works at once.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AccountStore, BoundedCache, Errors } from "@petstore/core"
import * as Columns from "./internal/columns.js"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

/** How often the account store looks for keys changed by another process. */
export interface AccountStoreSqliteOptions {
  /** How often another process's commits are looked for. */
  readonly pollMillis: number
}

/** The account store's defaults. */
export const DEFAULT_OPTIONS: AccountStoreSqliteOptions = { pollMillis: 250 }

/** Above this many cached keys (or accounts) the cache starts over (it only saves reads). */
const MAX_CACHED = 100_000

/** The columns of `api_keys`, each with the `KeyRecord` field it holds. */
const KEY_FIELDS: ReadonlyArray<Columns.Column<AccountStore.KeyRecord>> = [
  ["id", "id"],
  ["account_id", "accountId"],
  ["hash", "hash"],
  ["prefix", "prefix"],
  ["created_at", "createdAt"],
  ["expires_at", "expiresAt"],
  ["revoked_at", "revokedAt"],
  ["rotated_to", "rotatedTo"]
]

/** What every read of `api_keys` selects (here and in `Export`): a row is a `KeyRecord`. */
export const KEY_COLUMNS = Columns.selectList(KEY_FIELDS)

/** What every read of `accounts` selects (here and in `Export`): `accountOf` makes a row an `Account`. */
export const ACCOUNT_COLUMNS = `id, name, plan, per_minute AS "perMinute", per_day AS "perDay", status, created_at AS "createdAt"`

/** The account of a row read with `ACCOUNT_COLUMNS` (its limits are two columns). */
export const accountOf = (row: unknown): AccountStore.Account => {
  const { perDay, perMinute, ...account } = row as Omit<AccountStore.Account, "limits"> & AccountStore.Account["limits"]
  return { ...account, limits: { perMinute, perDay } }
}

const keyValues = (key: AccountStore.KeyRecord) => Columns.values(KEY_FIELDS, key)

/** The store's prepared statements. */
const statements = (connection: Connection["Service"]) => ({
  insertAccountRow: connection.prepare(
    "INSERT INTO accounts (id, name, plan, per_minute, per_day, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
  ),
  // Newest first after a position; each filter applies when given (`q`: an id prefix, or a part of
  // the name, SQLite's lower() folding ASCII letters only, as `AccountListing.foldAscii` does).
  listAccounts: connection.prepare(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts
     WHERE (@plan IS NULL OR plan = @plan) AND (@status IS NULL OR status = @status)
       AND (@q IS NULL OR substr(id, 1, length(@q)) = @q OR instr(lower(name), lower(@q)) > 0)
       AND (@afterAt IS NULL OR created_at < @afterAt OR (created_at = @afterAt AND id < @afterId))
     ORDER BY created_at DESC, id DESC LIMIT @limit`
  ),
  // A field not given (NULL; the name: `setName` 0) stays as it is.
  updateAccount: connection.prepare(
    `UPDATE accounts SET name = CASE WHEN @setName THEN @name ELSE name END, plan = coalesce(@plan, plan),
       per_minute = coalesce(@perMinute, per_minute), per_day = coalesce(@perDay, per_day), status = coalesce(@status, status)
     WHERE id = @id RETURNING ${ACCOUNT_COLUMNS}`
  ),
  insertKeyRow: connection.prepare(`INSERT INTO api_keys (${Columns.names(KEY_FIELDS)}) VALUES (${Columns.placeholders(KEY_FIELDS)})`),
  // The account check and the insert are one statement, so no other write can come between.
  insertKeyOfAccount: connection.prepare(
    `INSERT INTO api_keys (${Columns.names(KEY_FIELDS)}) SELECT ${Columns.placeholders(KEY_FIELDS)}
     WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ?) RETURNING id`
  ),
  accountRow: connection.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`),
  accountCount: connection.prepare("SELECT count(*) AS n FROM accounts").pluck(),
  keyById: connection.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`),
  keyByHash: connection.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = ?`),
  keysOfAccount: connection.prepare(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`
  ),
  revoke: connection.prepare(
    "UPDATE api_keys SET revoked_at = min(coalesce(revoked_at, @at), @at) WHERE id = @id RETURNING id"
  ),
  // Only a key never rotated: of two rotations of one key, the second finds it marked and changes nothing.
  rotateOut: connection.prepare(
    `UPDATE api_keys SET expires_at = min(coalesce(expires_at, @at), @at), rotated_to = @successor
     WHERE id = @id AND rotated_to IS NULL RETURNING id`
  ),
  successorOf: connection.prepare("SELECT rotated_to FROM api_keys WHERE id = ?").pluck()
})

/** The listing and the update of accounts; `forgetAccounts` empties the cache in the update's write. */
const listAndUpdate = (
  db: Database["Service"],
  sql: ReturnType<typeof statements>,
  forgetAccounts: () => void
): Pick<AccountStore.AccountStore["Service"], "listAccounts" | "updateAccount"> => ({
  listAccounts: ({ after, limit, plan, q, status }) =>
    db.read(() =>
      sql.listAccounts.all({
        plan: plan ?? null,
        status: status ?? null,
        q: q ?? null,
        afterAt: after?.createdAt ?? null,
        afterId: after?.id ?? null,
        limit
      }).map(accountOf)
    ),
  updateAccount: (id, change) =>
    db.write(() => {
      const row = sql.updateAccount.get({
        id,
        setName: change.name === undefined ? 0 : 1,
        name: change.name ?? null,
        plan: change.plan?.plan ?? null,
        perMinute: change.plan?.limits.perMinute ?? null,
        perDay: change.plan?.limits.perDay ?? null,
        status: change.status ?? null
      })
      // In the write, as keys are dropped: no lookup caches the old account past the commit.
      forgetAccounts()
      return Option.map(Option.fromNullishOr(row), accountOf)
    })
})

/** The account store on SQLite. @category constructors */
export const make = (
  options: AccountStoreSqliteOptions
): Effect.Effect<AccountStore.AccountStore["Service"], Errors.StoreUnavailable, Connection | Database> =>
  Effect.gen(function*() {
    const connection = yield* Connection
    const db = yield* Database

    // Accounts by id. An account is wrong once updated (name, plan, status): this store's update
    // empties the cache in its write, another process's commit empties it as it does the keys'.
    const accounts = BoundedCache.make<string, AccountStore.Account>(MAX_CACHED)
    // A key is wrong once revoked, rotated or expired early: every key write empties this cache (below).
    const keysByHash = BoundedCache.make<string, AccountStore.KeyRecord>(MAX_CACHED)
    // Lookups are synchronous, so none is in flight across an invalidation: dropping the cache is enough.
    const invalidateKeys = () => keysByHash.clear()
    // A write of keys drops the cache inside its transaction: the batch runs to COMMIT without
    // yielding, so no lookup can cache the old row between the change and its commit, even when
    // the caller stops waiting (interruption) before the commit.
    const keyWrite = <A>(write: () => A) =>
      db.write(() => {
        const result = write()
        invalidateKeys()
        return result
      })

    const sql = statements(connection)
    const dataVersionOf = connection.prepare("PRAGMA data_version").pluck()

    // Another process's commits show as a change of data_version on this connection. It is looked
    // at when a cached key is about to be used and the last look is `pollMillis` old: no timer runs.
    let seenVersion = yield* db.read(() => dataVersionOf.get() as number)
    // The store's Clock, read when a lookup runs (a TestClock under test).
    const clock = yield* Clock.Clock
    let lookedAt = clock.currentTimeMillisUnsafe()
    const noticeOtherWriters = (now: number) => {
      if (now - lookedAt < options.pollMillis && now >= lookedAt) return
      const version = dataVersionOf.get() as number
      lookedAt = now
      if (version !== seenVersion) {
        seenVersion = version
        invalidateKeys()
        accounts.clear()
      }
    }

    // The lookups, synchronous (better-sqlite3); they throw what SQLite throws.
    const keyByHashAt = (hash: string, now: number): Option.Option<AccountStore.KeyRecord> => {
      noticeOtherWriters(now)
      const cached = keysByHash.get(hash)
      if (cached !== undefined) return Option.some(cached)
      const found = Option.fromNullishOr(sql.keyByHash.get(hash) as AccountStore.KeyRecord | undefined)
      if (Option.isSome(found)) {
        keysByHash.set(hash, found.value)
      }
      return found
    }
    const accountById = (id: string): Option.Option<AccountStore.Account> => {
      noticeOtherWriters(clock.currentTimeMillisUnsafe())
      const cached = accounts.get(id)
      if (cached !== undefined) return Option.some(cached)
      const found = Option.map(Option.fromNullishOr(sql.accountRow.get(id)), accountOf)
      if (Option.isSome(found)) accounts.set(id, found.value)
      return found
    }
    // Lookups are synchronous reads, answered in the caller's step (`Effect.try`): no fiber is forked for them.
    const atOnce = <A>(f: () => A): Effect.Effect<A, Errors.StoreUnavailable> =>
      Effect.try({ try: f, catch: (cause) => new Errors.StoreUnavailable({ cause }) })

    return AccountStore.AccountStore.of({
      insertAccount: (account, firstKey) =>
        keyWrite(() => {
          sql.insertAccountRow.run(
            account.id,
            account.name,
            account.plan,
            account.limits.perMinute,
            account.limits.perDay,
            account.status,
            account.createdAt
          )
          sql.insertKeyRow.run(...keyValues(firstKey))
        }),
      findAccount: (id) => atOnce(() => accountById(id)),
      countAccounts: db.read(() => sql.accountCount.get() as number),
      ...listAndUpdate(db, sql, () => accounts.clear()),
      insertKey: (key) =>
        Effect.flatMap(
          keyWrite(() => sql.insertKeyOfAccount.all(...keyValues(key), key.accountId).length),
          (inserted) => inserted === 0 ? Effect.fail(new Errors.AccountNotFound({ id: key.accountId })) : Effect.void
        ),
      findKey: (id) => db.read(() => Option.fromNullishOr(sql.keyById.get(id) as AccountStore.KeyRecord | undefined)),
      findKeyByHash: (hash) => atOnce(() => keyByHashAt(hash, clock.currentTimeMillisUnsafe())),
      listKeys: (accountId) => db.read(() => sql.keysOfAccount.all(accountId) as Array<AccountStore.KeyRecord>),
      revokeKey: (id, at) =>
        Effect.flatMap(
          keyWrite(() => sql.revoke.all({ at, id }).length),
          (updated) => updated === 0 ? Effect.fail(new Errors.KeyNotFound({ id })) : Effect.void
        ),
      rotateKey: (oldId, oldExpiresAt, newKey) =>
        Effect.flatMap(
          keyWrite(() => {
            // The new key only when the old one exists and was never rotated: the check and both
            // writes are one transaction. Refused: what stopped it (the key's successor, or no key).
            if (sql.rotateOut.all({ at: oldExpiresAt, id: oldId, successor: newKey.id }).length === 0) {
              return { refused: sql.successorOf.get(oldId) as string | null | undefined }
            }
            sql.insertKeyRow.run(...keyValues(newKey))
            return undefined
          }),
          (outcome) => outcome === undefined ? Effect.void : AccountStore.refusedRotation(oldId, outcome.refused)
        )
    })
  })

/** The account store on SQLite, as a layer. @category layers */
export const layer = (
  options: Partial<AccountStoreSqliteOptions> = {}
): Layer.Layer<AccountStore.AccountStore, Errors.StoreUnavailable, Connection | Database> =>
  Layer.effect(AccountStore.AccountStore, make({ ...DEFAULT_OPTIONS, ...options }))
