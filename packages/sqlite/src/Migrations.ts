/**
 * The schema, as numbered migrations applied in order at start-up. A database written by an older
 * version is upgraded in place; one written by a newer version is refused rather than misread.
 *
 * Effect's `Migrator` is not used: it begins a deferred transaction (two processes starting at once,
 * the server and the CLI, can then fail with SQLITE_BUSY instead of waiting) and turns a failed
 * migration into a defect. Here one `BEGIN IMMEDIATE` transaction reads the version and applies
 * what is missing, so concurrent openers wait for each other and a failure leaves the file as it was.
 *
 * @since 1.0.0
 */
import Sqlite3 from "better-sqlite3"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import { Connection, DatabaseOpenError, explain } from "./Connection.js"

/** A migration: its number, its name and its statements. */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
}

/** Never edit a released migration: add a new one. */
export const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    id: 1,
    name: "pets",
    statements: [
      `CREATE TABLE pets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        category_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      )`,
      `CREATE INDEX pets_by_status ON pets (status, id)`
    ]
  },
  {
    id: 2,
    name: "accounts_and_keys",
    statements: [
      `CREATE TABLE accounts (
        id TEXT PRIMARY KEY NOT NULL,
        plan TEXT NOT NULL,
        per_minute INTEGER NOT NULL,
        per_day INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      )`,
      // Only the SHA-256 of a key and its display prefix are ever stored.
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      )`,
      `CREATE INDEX api_keys_by_account ON api_keys (account_id)`
    ]
  },
  {
    id: 3,
    name: "messages_outbox",
    statements: [
      // `seq` is the submission order claims follow; `id` is the public identifier.
      `CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL,
        message TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'delivered', 'failed')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL,
        available_at INTEGER NOT NULL,
        lease_until INTEGER NOT NULL,
        last_error TEXT
      )`,
      // Only pending messages are indexed, so a claim scans the work left, not the history.
      `CREATE INDEX messages_pending ON messages (seq) WHERE status IN ('queued', 'processing')`
    ]
  },
  {
    id: 4,
    name: "limiter_state",
    statements: [
      `CREATE TABLE limiter_quotas (
        account_id TEXT PRIMARY KEY NOT NULL,
        day INTEGER NOT NULL,
        used INTEGER NOT NULL
      )`,
      `CREATE TABLE limiter_standings (
        key_id TEXT PRIMARY KEY NOT NULL,
        wait_until INTEGER NOT NULL,
        strikes INTEGER NOT NULL,
        banned_until INTEGER NOT NULL,
        bans INTEGER NOT NULL,
        last_ban_at INTEGER NOT NULL
      )`
    ]
  },
  {
    id: 5,
    name: "secrets",
    statements: [`CREATE TABLE secrets (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)`]
  },
  {
    id: 6,
    name: "idempotency_keys",
    statements: [
      // The answers of keyed creates: one live record per account and key, written in the
      // transaction of the pet or message it names (`resource_id`).
      `CREATE TABLE idempotency_keys (
        account_id TEXT NOT NULL,
        key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        operation TEXT NOT NULL CHECK (operation IN ('createPet', 'createMessage')),
        fingerprint TEXT NOT NULL,
        resource_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, key)
      )`,
      `CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`
    ]
  },
  {
    id: 7,
    name: "usage",
    statements: [
      // Counts per account, key and bucket (epoch ms of the hour's or the day's start), one column per outcome.
      ...["usage_hourly", "usage_daily"].flatMap((table) => [
        `CREATE TABLE ${table} (
          account_id TEXT NOT NULL,
          start INTEGER NOT NULL,
          key_id TEXT NOT NULL,
          allowed INTEGER NOT NULL DEFAULT 0,
          rate_limited INTEGER NOT NULL DEFAULT 0,
          quota_exceeded INTEGER NOT NULL DEFAULT 0,
          banned INTEGER NOT NULL DEFAULT 0,
          client_errors INTEGER NOT NULL DEFAULT 0,
          server_errors INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (account_id, start, key_id)
        ) WITHOUT ROWID`,
        `CREATE INDEX ${table}_by_start ON ${table} (start)`
      ]),
      // The batches already added, by instance and sequence number: a batch written twice counts once.
      `CREATE TABLE usage_flushes (
        instance_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (instance_id, seq)
      ) WITHOUT ROWID`
    ]
  },
  {
    id: 8,
    name: "webhooks",
    statements: [
      // `secrets` is a JSON array of {secret, expiresAt}, the current one first.
      `CREATE TABLE webhook_endpoints (
        account_id TEXT PRIMARY KEY NOT NULL,
        url TEXT NOT NULL,
        secrets TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        failing_since INTEGER,
        disabled_at INTEGER,
        disabled_reason TEXT
      )`,
      `CREATE TABLE webhook_attempts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        url TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        status_code INTEGER,
        error TEXT
      )`,
      `CREATE INDEX webhook_attempts_by_message ON webhook_attempts (message_id, seq)`,
      `CREATE INDEX webhook_attempts_by_account ON webhook_attempts (account_id, started_at)`
    ]
  },
  {
    id: 9,
    name: "key_rotated_to",
    statements: [
      // The key that replaced this one when it was rotated (a key is rotated once); keys rotated
      // before this column existed have none.
      `ALTER TABLE api_keys ADD COLUMN rotated_to TEXT`
    ]
  },
  {
    id: 10,
    name: "messages_by_account",
    statements: [
      // An account's messages in a status, in the order they came (the admin's listing of failures).
      `CREATE INDEX messages_by_account ON messages (account_id, status, created_at, id)`
    ]
  },
  {
    id: 11,
    name: "console_sessions",
    statements: [
      // The operator console's sessions: an HMAC-SHA-256 of each session id keyed from the admin token (never the id) and its end.
      `CREATE TABLE console_sessions (
        id_hash TEXT PRIMARY KEY NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID`
    ]
  },
  {
    id: 12,
    name: "account_name_status",
    statements: [
      // An account's name for people (none before), and whether its keys are served; accounts
      // created before these columns are nameless and active.
      `ALTER TABLE accounts ADD COLUMN name TEXT`,
      `ALTER TABLE accounts ADD COLUMN status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended'))`,
      // The admin's listing: newest first, then by id.
      `CREATE INDEX accounts_newest ON accounts (created_at DESC, id DESC)`
    ]
  }
]

/** The schema version of a database (0 for a new one). */
const versionOf = (connection: { prepare(source: string): { pluck(): { get(): unknown } } }): number => {
  const table = connection.prepare(
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
  ).pluck().get() as number
  if (table === 0) return 0
  return (connection.prepare("SELECT max(id) FROM schema_migrations").pluck().get() as number | null) ?? 0
}

/** The refusal of a database whose schema is newer than this program knows. */
const newerThanKnown = (filename: string, version: number, latest: number) =>
  new DatabaseOpenError({
    filename,
    message: `database ${JSON.stringify(filename)} has schema version ${version}, newer than this program knows (${latest}); run a newer version of the program`
  })

class Refused {
  constructor(readonly error: DatabaseOpenError) {}
}

/**
 * Brings the database to the last of `migrations` (all of them by default; tests pass a prefix to
 * make an "older version" database). Returns the ids applied.
 */
export const migrate = (
  filename: string,
  migrations: ReadonlyArray<Migration> = MIGRATIONS
): Effect.Effect<ReadonlyArray<number>, DatabaseOpenError, Connection> =>
  Effect.flatMap(Connection, (connection) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.try({
        try: () => {
          const latest = migrations.reduce((max, m) => Math.max(max, m.id), 0)
          connection.exec("BEGIN IMMEDIATE")
          try {
            connection.exec(
              "CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL)"
            )
            const version = versionOf(connection)
            if (version > latest) {
              throw new Refused(newerThanKnown(filename, version, latest))
            }
            const pending = migrations.filter((m) => m.id > version)
            const record = connection.prepare("INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)")
            for (const m of pending) {
              for (const statement of m.statements) connection.exec(statement)
              record.run(m.id, m.name, now)
            }
            connection.exec("COMMIT")
            return pending.map((m) => m.id)
          } catch (error) {
            try {
              connection.exec("ROLLBACK")
            } catch {
              // SQLite already ended the transaction.
            }
            throw error
          }
        },
        catch: (error) =>
          error instanceof Refused
            ? error.error
            : new DatabaseOpenError({ filename, message: explain(filename, error), cause: error })
      })
    ))

/**
 * The migrations `migrate` would apply to the database in `filename`, applying none (`petstore
 * migrate --check`), and the schema's version. The file is only read and nothing is set on it (not
 * even the journal mode); a file that does not exist is a database of version 0, not created. A
 * database newer than this program knows is refused, as `migrate` refuses it.
 */
export const pending = (
  filename: string,
  migrations: ReadonlyArray<Migration> = MIGRATIONS
): Effect.Effect<{ readonly version: number; readonly pending: ReadonlyArray<Migration> }, DatabaseOpenError> =>
  Effect.try({
    try: () => {
      if (!Fs.existsSync(filename)) return { version: 0, pending: migrations }
      // Opened without the server's settings (no journal mode is set), and read only; closing it as
      // the last connection removes the WAL companions SQLite makes for a reader.
      const db = new Sqlite3(filename, { fileMustExist: true })
      try {
        const version = versionOf(db)
        const latest = migrations.reduce((max, m) => Math.max(max, m.id), 0)
        if (version > latest) throw new Refused(newerThanKnown(filename, version, latest))
        return { version, pending: migrations.filter((m) => m.id > version) }
      } finally {
        db.close()
      }
    },
    catch: (error) =>
      error instanceof Refused ? error.error : new DatabaseOpenError({ filename, message: explain(filename, error), cause: error })
  })

/** Runs the migrations when the layer is built. */
export const layer = (filename: string): Layer.Layer<never, DatabaseOpenError, Connection> =>
  Layer.effectDiscard(migrate(filename))
