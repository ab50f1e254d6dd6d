/**
 * An export made before accounts had a name and a status, read by today's program. An export is a
 * SQLite file (what `petstore import-sqlite` reads, through `Sqlite.Export.snapshot`); before the
 * accounts API its schema was at version 10 (SQLite migrations 1..10) and its accounts rows were
 * `(id, plan, per_minute, per_day, created_at)`, and the snapshot's accounts were
 * `{id, plan, limits, createdAt}`. The file is made with exactly those migrations and those rows.
 *
 * Opened by today's SQLite store, and imported into PostgreSQL (from the file, and from a snapshot
 * of that shape), its accounts are nameless and active and their keys authenticate.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { AccountStore, Accounts, ApiKey, SecureRandom, type StoreSnapshot } from "@petstore/core"
import * as Postgres from "@petstore/postgres"
import * as Sqlite from "@petstore/sqlite"
import { Context, Effect, Layer, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"

const database = await TestDatabase.make()
const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-older-export-"))
afterAll(() => Fs.rmSync(folder, { recursive: true, force: true }))

/** The last SQLite migration before accounts had a name and a status. */
const OLDER_SCHEMA = 10
const NOW = 1_767_225_600_000 // 2026-01-01

/** Well-formed keys (`psk_live_` and 32 letters or digits), one per account. */
const token = (n: number) => `psk_live_${String(n).padStart(32, "x")}`
const OLD_ACCOUNTS = [
  { id: "acc_old1", plan: "free", perMinute: 60, perDay: 1_000, createdAt: NOW - 2_000, key: token(1) },
  { id: "acc_old2", plan: "enterprise", perMinute: 5_000, perDay: 9_000_000, createdAt: NOW - 1_000, key: token(2) }
] as const

/** A SQLite file at the older schema holding the accounts above, written as the older program wrote them. */
const olderExport = (filename: string) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(Sqlite.Connection.layer({ filename }))
    const connection = Context.get(context, Sqlite.Connection.Connection)
    const older = Sqlite.Migrations.MIGRATIONS.filter((m) => m.id <= OLDER_SCHEMA)
    expect(older.map((m) => m.id)).toStrictEqual(Array.from({ length: OLDER_SCHEMA }, (_, i) => i + 1))
    yield* Effect.provide(Sqlite.Migrations.migrate(filename, older), context)
    const account = connection.prepare("INSERT INTO accounts (id, plan, per_minute, per_day, created_at) VALUES (?, ?, ?, ?, ?)")
    const key = connection.prepare(
      "INSERT INTO api_keys (id, account_id, hash, prefix, created_at, expires_at, revoked_at, rotated_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )
    for (const a of OLD_ACCOUNTS) {
      account.run(a.id, a.plan, a.perMinute, a.perDay, a.createdAt)
      key.run(`key_${a.id}`, a.id, ApiKey.hash(a.key), ApiKey.displayPrefix(a.key), a.createdAt, null, null, null)
    }
  }))

/** What today's program answers about the older accounts on a store: each account, and each key's principal. */
const readAccounts = Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  const found = yield* Effect.forEach(OLD_ACCOUNTS, (a) => accounts.findAccount(a.id))
  const principals = yield* Effect.forEach(OLD_ACCOUNTS, (a) => accounts.verify(a.key))
  const listed = yield* accounts.list({ limit: 10, status: "active" })
  return { found, principals, listed: listed.accounts.map((a) => a.id) }
})

const expected = {
  found: OLD_ACCOUNTS.map((a) => ({
    id: a.id,
    name: null,
    plan: a.plan,
    limits: { perMinute: a.perMinute, perDay: a.perDay },
    status: "active",
    createdAt: a.createdAt
  })),
  principals: OLD_ACCOUNTS.map((a) =>
    Option.some({ accountId: a.id, keyId: `key_${a.id}`, limits: { perMinute: a.perMinute, perDay: a.perDay }, suspended: false })
  ),
  listed: OLD_ACCOUNTS.map((a) => a.id).reverse()
}

const withAccounts = <E>(store: Layer.Layer<AccountStore.AccountStore, E>) =>
  Accounts.Accounts.layer({ environment: "production" }).pipe(
    Layer.provide(store),
    Layer.provide(SecureRandom.SecureRandom.Live)
  )

/** The answers of `readAccounts` on a fresh PostgreSQL database `snapshot` was imported into. */
const importedIntoPostgres = (pg: TestDatabase.TestDatabase, snapshot: StoreSnapshot.StoreSnapshot) =>
  Effect.gen(function*() {
    const url = yield* Effect.promise(() => pg.freshUrl())
    const options = { url, poolSize: 2, queryTimeoutMillis: 60_000 }
    yield* Postgres.Import.importSnapshot(snapshot).pipe(Effect.provide(Postgres.layer(options)))
    return yield* readAccounts.pipe(Effect.provide(withAccounts(Postgres.layer(options))))
  })

describe("an export made before accounts had a name and a status", () => {
  it.live("today's SQLite store opens it: its accounts are nameless and active, their keys authenticate", () =>
    Effect.gen(function*() {
      const filename = Path.join(folder, "sqlite.db")
      yield* olderExport(filename)
      const answers = yield* readAccounts.pipe(Effect.provide(withAccounts(Sqlite.layer({ filename }))))
      expect(answers).toStrictEqual(expected)
    }))

  const pg = "skip" in database ? undefined : database
  it.skipIf(pg === undefined)("imported into PostgreSQL from the file: nameless and active accounts, keys that authenticate", () =>
    Effect.gen(function*() {
      const filename = Path.join(folder, "import.db")
      yield* olderExport(filename)
      // What `petstore import-sqlite` reads (the file brought to today's schema first).
      const snapshot = yield* Sqlite.Export.snapshot.pipe(Effect.provide(Sqlite.SqlitePetstore.layerDatabase({ filename })))
      expect(snapshot.accounts.map((a) => [a.name, a.status])).toStrictEqual([[null, "active"], [null, "active"]])
      expect(yield* importedIntoPostgres(pg!, snapshot)).toStrictEqual(expected)
    }).pipe(Effect.scoped, Effect.runPromise), 60_000)

  it.skipIf(pg === undefined)("a snapshot whose accounts have no name and no status is imported as nameless and active", () =>
    Effect.gen(function*() {
      // The snapshot's accounts as they were before the fields existed: `{id, plan, limits, createdAt}`.
      const snapshot = {
        accounts: OLD_ACCOUNTS.map((a) => ({ id: a.id, plan: a.plan, limits: { perMinute: a.perMinute, perDay: a.perDay }, createdAt: a.createdAt })),
        keys: OLD_ACCOUNTS.map((a) => ({
          id: `key_${a.id}`,
          accountId: a.id,
          hash: ApiKey.hash(a.key),
          prefix: ApiKey.displayPrefix(a.key),
          createdAt: a.createdAt,
          expiresAt: null,
          revokedAt: null,
          rotatedTo: null
        })),
        pets: [],
        messages: [],
        limiter: { quotas: [], standings: [] },
        cursorSecret: undefined
      } as unknown as StoreSnapshot.StoreSnapshot
      expect(yield* importedIntoPostgres(pg!, snapshot)).toStrictEqual(expected)
    }).pipe(Effect.scoped, Effect.runPromise), 60_000)
})
