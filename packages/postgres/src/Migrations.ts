/**
 * The schema, as numbered migrations applied at start (and by `petstore migrate`).
 *
 * - Several instances starting at once apply each migration exactly once: the whole run holds a
 *   transaction-level advisory lock, so the others wait, then find nothing left to do. (A migration
 *   run outside the transaction, `outsideTransaction`, has a session-level lock of its own.)
 * - A migration and its record commit together: a failure leaves the database as it was.
 * - Migrations are additive (new tables, columns with defaults, indexes), so an instance of the
 *   previous version keeps serving while a newer one migrates (rolling deploys). A migration that
 *   is not additive says so with `requiresProgram`: the oldest schema version a program must know
 *   to work with the database once it is applied. An instance that knows less refuses to start,
 *   with a message that says why; a database merely newer than the instance is served.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ADMIN_TIMEOUT, Database, DatabaseOpenError, messageOf } from "./Database.js"
import { applyOutsideTransaction } from "./internal/outsideTransaction.js"

/** A migration: its number, its name and its statements. */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
  /** Set only when older programs cannot work with the schema once this is applied (default: additive). */
  readonly requiresProgram?: number | undefined
  /**
   * Run outside the migration transaction, under a session-level lock of its own, recorded once it
   * succeeded: for `CREATE INDEX CONCURRENTLY … IF NOT EXISTS` (docs/storage.md says when).
   */
  readonly outsideTransaction?: true | undefined
}

/** The advisory lock that serializes migration runs (any constant shared by every instance). */
const MIGRATION_LOCK = 0x7065_7401

/** Never edit a released migration: add a new one. */
export const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    id: 1,
    name: "initial",
    statements: [
      `CREATE TABLE pets (
        id bigint PRIMARY KEY,
        name text NOT NULL,
        category_id bigint NOT NULL,
        status text NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      )`,
      `CREATE INDEX pets_by_status ON pets (status, id)`,
      // The last pet id handed out. Inserts take ids from this row, whose lock they hold until they
      // commit, so ids become visible in the order they were handed out (see PetRepositoryPg).
      `CREATE TABLE pet_ids (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), last bigint NOT NULL)`,
      `INSERT INTO pet_ids (only_row, last) VALUES (true, 0)`,
      `CREATE TABLE accounts (
        id text PRIMARY KEY,
        plan text NOT NULL,
        per_minute integer NOT NULL,
        per_day integer NOT NULL,
        created_at bigint NOT NULL
      )`,
      // Only the SHA-256 of a key and its display prefix are ever stored.
      `CREATE TABLE api_keys (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        hash text NOT NULL UNIQUE,
        prefix text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint,
        revoked_at bigint
      )`,
      `CREATE INDEX api_keys_by_account ON api_keys (account_id)`,
      // `seq` is the submission order claims follow; `id` is the public identifier.
      `CREATE TABLE messages (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        account_id text NOT NULL,
        message text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'processing', 'delivered', 'failed')),
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        attempts integer NOT NULL,
        available_at bigint NOT NULL,
        lease_until bigint NOT NULL,
        last_error text
      )`,
      // Only pending messages are indexed, so a claim scans the work left, not the history.
      `CREATE INDEX messages_pending ON messages (seq) WHERE status IN ('queued', 'processing')`,
      `CREATE TABLE limiter_quotas (account_id text PRIMARY KEY, day integer NOT NULL, used integer NOT NULL)`,
      `CREATE TABLE limiter_standings (
        key_id text PRIMARY KEY,
        wait_until bigint NOT NULL,
        strikes integer NOT NULL,
        banned_until bigint NOT NULL,
        bans integer NOT NULL,
        last_ban_at bigint NOT NULL
      )`,
      `CREATE TABLE secrets (name text PRIMARY KEY, value bytea NOT NULL)`
    ]
  },
  {
    id: 2,
    name: "idempotency_keys",
    statements: [
      // The answers of keyed creates: the primary key is the lock of a key across instances (a
      // second insert of it waits for the first transaction), written in the statement that writes
      // the pet or message it names (`resource_id`).
      `CREATE TABLE idempotency_keys (
        account_id text NOT NULL,
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        operation text NOT NULL CHECK (operation IN ('createPet', 'createMessage')),
        fingerprint text NOT NULL,
        resource_id text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (account_id, key)
      )`,
      `CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`
    ]
  },
  {
    id: 3,
    name: "usage",
    statements: [
      // Counts per account, key and bucket (epoch ms of the hour's or the day's start), one column per outcome.
      ...["usage_hourly", "usage_daily"].flatMap((table) => [
        `CREATE TABLE ${table} (
          account_id text NOT NULL,
          start bigint NOT NULL,
          key_id text NOT NULL,
          allowed bigint NOT NULL DEFAULT 0,
          rate_limited bigint NOT NULL DEFAULT 0,
          quota_exceeded bigint NOT NULL DEFAULT 0,
          banned bigint NOT NULL DEFAULT 0,
          client_errors bigint NOT NULL DEFAULT 0,
          server_errors bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (account_id, start, key_id)
        )`,
        `CREATE INDEX ${table}_by_start ON ${table} (start)`
      ]),
      // The batches already added, by instance and sequence number: a batch written twice counts once.
      `CREATE TABLE usage_flushes (
        instance_id text NOT NULL,
        seq bigint NOT NULL,
        at bigint NOT NULL,
        PRIMARY KEY (instance_id, seq)
      )`
    ]
  },
  {
    id: 4,
    name: "webhooks",
    statements: [
      // `secrets` is a JSON array of {secret, expiresAt}, the current one first.
      `CREATE TABLE webhook_endpoints (
        account_id text PRIMARY KEY,
        url text NOT NULL,
        secrets text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        failing_since bigint,
        disabled_at bigint,
        disabled_reason text
      )`,
      `CREATE TABLE webhook_attempts (
        seq bigserial PRIMARY KEY,
        message_id text NOT NULL,
        account_id text NOT NULL,
        attempt integer NOT NULL,
        url text NOT NULL,
        started_at bigint NOT NULL,
        duration_ms integer NOT NULL,
        status_code integer,
        error text
      )`,
      `CREATE INDEX webhook_attempts_by_message ON webhook_attempts (message_id, seq)`,
      `CREATE INDEX webhook_attempts_by_account ON webhook_attempts (account_id, started_at)`
    ]
  },
  {
    id: 5,
    name: "key_rotated_to",
    statements: [
      // The key that replaced this one when it was rotated (a key is rotated once); keys rotated
      // before this column existed have none.
      `ALTER TABLE api_keys ADD COLUMN rotated_to text`
    ]
  },
  {
    id: 6,
    name: "messages_by_account",
    statements: [
      // An account's messages in a status, in the order they came (the admin's listing of failures).
      // An index only: a program of the previous version runs on it as before.
      `CREATE INDEX IF NOT EXISTS messages_by_account ON messages (account_id, status, created_at, id)`
    ]
  },
  {
    id: 7,
    name: "console_sessions",
    statements: [
      // The operator console's sessions, shared by every instance: an HMAC-SHA-256 of each session id keyed from the admin token
      // (never the id) and its end. A new table only: a program of the previous version runs on it as before.
      `CREATE TABLE console_sessions (
        id_hash text PRIMARY KEY,
        expires_at bigint NOT NULL
      )`
    ]
  },
  {
    id: 8,
    name: "account_name_status",
    statements: [
      // An account's name for people (none before), and whether its keys are served; accounts
      // created before these columns are nameless and active. Additive: the previous program
      // neither reads nor writes them (its inserts take the defaults).
      `ALTER TABLE accounts ADD COLUMN name text`,
      `ALTER TABLE accounts ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended'))`
    ]
  },
  {
    id: 9,
    name: "accounts_newest",
    outsideTransaction: true,
    statements: [
      // The admin's listing: newest first, then by id in byte order (COLLATE "C", as the listing sorts).
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS accounts_newest ON accounts (created_at DESC, (id COLLATE "C") DESC)`
    ]
  },
  {
    id: 10,
    name: "messages_due",
    outsideTransaction: true,
    statements: [
      // The pending messages by the instant each may be claimed (a queued one's availability, a
      // claimed one's lease end): the workers' "when is the next one due" is its first entry, where
      // it was a read of every pending entry. An index only: a program of the previous version runs on it as before.
      // Written out, not built from `MESSAGE_DUE`: a released migration never changes. The statements that
      // read it repeat the expression exactly (DeliveryStatements.test.ts fails when they stop using it).
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS messages_due ON messages ((CASE WHEN status = 'queued' THEN available_at ELSE lease_until END))
         WHERE status IN ('queued', 'processing')`
    ]
  }
]

/** What a run found and did. */
export interface MigrationReport {
  /** The schema version before the run. */
  readonly from: number
  /** The migrations this run applied (empty when another instance had applied them). */
  readonly applied: ReadonlyArray<number>
  /** The schema version after the run (may be above what this program knows, when compatible). */
  readonly version: number
}

interface VersionRow {
  readonly version: number | null
  readonly requires: number | null
}

/** Whether the database's schema can be used by a program that knows up to `known`; why not if not. */
export const compatibility = (version: number, requires: number, known: number): string | undefined =>
  requires > known
    ? `database schema version ${version} needs a program that knows schema version ${requires} or later; this program knows up to ${known}: run a newer version of the program`
    : undefined

/**
 * Brings the database to the last of `migrations` (all of them by default; tests pass a prefix to
 * make an "older version" database), or refuses a schema this program cannot work with.
 */
export const migrate = (
  migrations: ReadonlyArray<Migration> = MIGRATIONS
): Effect.Effect<MigrationReport, DatabaseOpenError, Database> =>
  Effect.flatMap(Database, (db) => {
    const known = migrations.reduce((max, m) => Math.max(max, m.id), 0)
    return db.transaction(async (client) => {
      // Administrative work may take longer than a request's statement timeout.
      await client.query("SET LOCAL statement_timeout = 0")
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK])
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        requires_program integer NOT NULL
      )`)
      const { rows: [row] } = await client.query<VersionRow>(
        "SELECT max(id) AS version, max(requires_program) AS requires FROM schema_migrations"
      )
      const from = row?.version ?? 0
      const refused = compatibility(from, row?.requires ?? 0, known)
      if (refused !== undefined) return { refused } as const
      const applied: Array<number> = []
      let requires = row?.requires ?? 0
      for (const m of migrations.filter((m) => m.id > from).sort((a, b) => a.id - b.id)) {
        // The transaction ends here: that migration, then the rest, are applied after it commits.
        if (m.outsideTransaction === true) return { from, applied, version: applied.at(-1) ?? from, next: { m, requires } }
        for (const statement of m.statements) await client.query(statement)
        requires = Math.max(requires, m.requiresProgram ?? 1)
        await client.query("INSERT INTO schema_migrations (id, name, requires_program) VALUES ($1, $2, $3)", [m.id, m.name, requires])
        applied.push(m.id)
      }
      return { from, applied, version: Math.max(from, known), next: undefined }
    }, ADMIN_TIMEOUT).pipe(
      Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error })),
      Effect.flatMap((result): Effect.Effect<MigrationReport, DatabaseOpenError, Database> => {
        if ("refused" in result) {
          return Effect.fail(new DatabaseOpenError({ url: db.where, message: `PostgreSQL at ${db.where}: ${result.refused}` }))
        }
        const { next, ...report } = result
        if (next === undefined) return Effect.succeed(report)
        return outsideTransaction(db, next.m, Math.max(next.requires, next.m.requiresProgram ?? 1)).pipe(
          Effect.andThen((appliedHere) => Effect.map(migrate(migrations), (rest) => ({
            from: report.from,
            applied: [...report.applied, ...(appliedHere ? [next.m.id] : []), ...rest.applied],
            version: rest.version
          })))
        )
      })
    )
  })

/** Applies `m` outside a transaction (on a pooled connection, its transaction committed first); whether this run did. */
const outsideTransaction = (db: Database["Service"], m: Migration, requires: number) =>
  db.transaction(async (client) => {
    await client.query("COMMIT")
    try {
      return await applyOutsideTransaction(client, m, requires)
    } finally {
      await client.query("BEGIN")
    }
  }, ADMIN_TIMEOUT).pipe(
    Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error }))
  )

/**
 * The migrations `migrate` would apply to the database, applying none (`petstore migrate --check`);
 * the schema's version with them.
 */
export const pending = (
  migrations: ReadonlyArray<Migration> = MIGRATIONS
): Effect.Effect<{ readonly version: number; readonly pending: ReadonlyArray<Migration> }, DatabaseOpenError, Database> =>
  Effect.flatMap(Database, (db) => {
    const known = migrations.reduce((max, m) => Math.max(max, m.id), 0)
    return db.transaction(async (client) => {
      const { rows: [table] } = await client.query<{ name: string | null }>("SELECT to_regclass('schema_migrations')::text AS name")
      if (table?.name === null || table?.name === undefined) return { version: 0, requires: 0 }
      const { rows: [row] } = await client.query<VersionRow>(
        "SELECT max(id) AS version, max(requires_program) AS requires FROM schema_migrations"
      )
      return { version: row?.version ?? 0, requires: row?.requires ?? 0 }
    }, ADMIN_TIMEOUT).pipe(
      Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error })),
      Effect.flatMap(({ requires, version }) => {
        // A schema this program cannot work with is refused, as `migrate` and the server refuse it.
        const refused = compatibility(version, requires, known)
        return refused !== undefined
          ? Effect.fail(new DatabaseOpenError({ url: db.where, message: `PostgreSQL at ${db.where}: ${refused}` }))
          : Effect.succeed({ version, pending: migrations.filter((m) => m.id > version).sort((a, b) => a.id - b.id) })
      })
    )
  })

/** Runs the migrations when the layer is built. */
export const layer: Layer.Layer<never, DatabaseOpenError, Database> = Layer.effectDiscard(migrate())
