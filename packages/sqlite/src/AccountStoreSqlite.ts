/**
 * `AccountStore` on SQLite (key hashes only). Verifying a key is on every request's path, so keys
 * found by hash and accounts are kept in memory:
 * - accounts never change once stored, so a cached account is always right;
 * - keys change (revoke, rotate) through this store, which drops the cache after its commit, or
 *   through another process on the same file (the CLI): `PRAGMA data_version`, which moves when
 *   another connection commits, is read again before a key lookup once the last reading is
 *   `pollMillis` old, and the cache is dropped when it moved. A key revoked elsewhere is refused
 *   here within `pollMillis` (default 250 ms).
 * Unknown hashes are not cached, so a key created elsewhere works at once.
 *
 * @since 1.0.0
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Clock, Effect, Layer, Option } from "effect"
import { AccountStore, Errors, type Plan } from "@petstore/core"
import { Database } from "./GroupCommit.js"

export interface AccountStoreSqliteOptions {
  /** How often another process's commits are looked for. */
  readonly pollMillis: number
}

export const DEFAULT_OPTIONS: AccountStoreSqliteOptions = { pollMillis: 250 }

/** Above this many cached keys the cache starts over (it only saves reads). */
const MAX_CACHED = 100_000

interface AccountRow {
  readonly id: string
  readonly plan: Plan.Plan
  readonly per_minute: number
  readonly per_day: number
  readonly created_at: number
}

interface KeyRow {
  readonly id: string
  readonly account_id: string
  readonly hash: string
  readonly prefix: string
  readonly created_at: number
  readonly expires_at: number | null
  readonly revoked_at: number | null
}

const toAccount = (row: AccountRow): AccountStore.Account => ({
  id: row.id,
  plan: row.plan,
  limits: { perMinute: row.per_minute, perDay: row.per_day },
  createdAt: row.created_at
})

const toKey = (row: KeyRow): AccountStore.KeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  hash: row.hash,
  prefix: row.prefix,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at
})

/** @category constructors */
export const make = (
  options: AccountStoreSqliteOptions
): Effect.Effect<AccountStore.AccountStore["Type"], Errors.StoreUnavailable, SqlClient.SqlClient | Database> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const db = yield* Database

    const accounts = new Map<string, AccountStore.Account>()
    const keysByHash = new Map<string, AccountStore.KeyRecord>()
    // Bumped by every invalidation: a read that began before one must not refill the cache after it.
    let generation = 0
    const invalidateKeys = () => {
      generation++
      keysByHash.clear()
    }
    const afterKeyWrite = <A, E>(write: Effect.Effect<A, E>) => Effect.ensuring(write, Effect.sync(invalidateKeys))

    const KEY_COLUMNS = sql.literal("id, account_id, hash, prefix, created_at, expires_at, revoked_at")

    const insertKeyRow = (key: AccountStore.KeyRecord) =>
      sql`INSERT INTO api_keys (id, account_id, hash, prefix, created_at, expires_at, revoked_at)
          VALUES (${key.id}, ${key.accountId}, ${key.hash}, ${key.prefix}, ${key.createdAt}, ${key.expiresAt}, ${key.revokedAt})`

    // Another process's commits show as a change of data_version on this connection. It is looked
    // at when a cached key is about to be used and the last look is `pollMillis` old: no timer runs.
    const dataVersion = db.read(sql<{ data_version: number }>`PRAGMA data_version`).pipe(
      Effect.map((rows) => rows[0]!.data_version)
    )
    let seenVersion = yield* dataVersion
    let lookedAt = yield* Clock.currentTimeMillis
    const noticeOtherWriters = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (now - lookedAt < options.pollMillis && now >= lookedAt) return Effect.void
      lookedAt = now
      return Effect.map(dataVersion, (version) => {
        if (version !== seenVersion) {
          seenVersion = version
          invalidateKeys()
        }
      })
    })

    return AccountStore.AccountStore.of({
      insertAccount: (account, firstKey) =>
        afterKeyWrite(db.write(Effect.zipRight(
          sql`INSERT INTO accounts (id, plan, per_minute, per_day, created_at)
              VALUES (${account.id}, ${account.plan}, ${account.limits.perMinute}, ${account.limits.perDay}, ${account.createdAt})`,
          Effect.asVoid(insertKeyRow(firstKey))
        ))),
      findAccount: (id) =>
        Effect.suspend(() => {
          const cached = accounts.get(id)
          if (cached !== undefined) return Effect.succeedSome(cached)
          return db.read(
            sql<AccountRow>`SELECT id, plan, per_minute, per_day, created_at FROM accounts WHERE id = ${id}`
          ).pipe(Effect.map((rows) => {
            const found = Option.map(Option.fromNullable(rows[0]), toAccount)
            if (Option.isSome(found) && accounts.size < MAX_CACHED) accounts.set(id, found.value)
            return found
          }))
        }),
      countAccounts: db.read(sql<{ n: number }>`SELECT count(*) AS n FROM accounts`).pipe(Effect.map((rows) => rows[0]!.n)),
      insertKey: (key) =>
        afterKeyWrite(db.write(
          // The account check and the insert are one statement, so no other write can come between.
          Effect.flatMap(
            sql<{ id: string }>`INSERT INTO api_keys (id, account_id, hash, prefix, created_at, expires_at, revoked_at)
                SELECT ${key.id}, ${key.accountId}, ${key.hash}, ${key.prefix}, ${key.createdAt}, ${key.expiresAt}, ${key.revokedAt}
                WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ${key.accountId})
                RETURNING id`,
            (rows) => rows.length === 0 ? Effect.fail(new Errors.AccountNotFound({ id: key.accountId })) : Effect.void
          )
        )),
      findKey: (id) =>
        db.read(sql<KeyRow>`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ${id}`).pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toKey))),
      findKeyByHash: (hash) =>
        Effect.zipRight(
          noticeOtherWriters,
          Effect.suspend(() => {
            const cached = keysByHash.get(hash)
            if (cached !== undefined) return Effect.succeedSome(cached)
            const before = generation
            return db.read(sql<KeyRow>`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = ${hash}`).pipe(Effect.map((rows) => {
              const found = Option.map(Option.fromNullable(rows[0]), toKey)
              if (Option.isSome(found) && generation === before) {
                if (keysByHash.size >= MAX_CACHED) keysByHash.clear()
                keysByHash.set(hash, found.value)
              }
              return found
            }))
          })
        ),
      listKeys: (accountId) =>
        db.read(sql<KeyRow>`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ${accountId} ORDER BY created_at, id`).pipe(
          Effect.map((rows) => rows.map(toKey))
        ),
      revokeKey: (id, at) =>
        afterKeyWrite(db.write(
          Effect.flatMap(
            sql<{ id: string }>`UPDATE api_keys SET revoked_at = min(coalesce(revoked_at, ${at}), ${at}) WHERE id = ${id} RETURNING id`,
            (rows) => rows.length === 0 ? Effect.fail(new Errors.KeyNotFound({ id })) : Effect.void
          )
        )),
      rotateKey: (oldId, oldExpiresAt, newKey) =>
        afterKeyWrite(db.write(
          Effect.flatMap(
            sql<{ id: string }>`UPDATE api_keys SET expires_at = min(coalesce(expires_at, ${oldExpiresAt}), ${oldExpiresAt})
                WHERE id = ${oldId} RETURNING id`,
            (rows): Effect.Effect<void, Errors.KeyNotFound | SqlError.SqlError> =>
              rows.length === 0 ? Effect.fail(new Errors.KeyNotFound({ id: oldId })) : Effect.asVoid(insertKeyRow(newKey))
          )
        ))
    })
  })

/** @category layers */
export const layer = (
  options: Partial<AccountStoreSqliteOptions> = {}
): Layer.Layer<AccountStore.AccountStore, Errors.StoreUnavailable, SqlClient.SqlClient | Database> =>
  Layer.effect(AccountStore.AccountStore, make({ ...DEFAULT_OPTIONS, ...options }))
