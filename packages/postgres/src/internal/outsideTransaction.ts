/**
 * A migration run outside the migration transaction (`Migration.outsideTransaction`): PostgreSQL
 * refuses `CREATE INDEX CONCURRENTLY` inside one, and an index built so does not block writes to its
 * table while it builds (a plain `CREATE INDEX` does, for the whole build).
 *
 * - Exactly once across instances: a session-level advisory lock of its own is held around it, and
 *   its record is written after it succeeded, so an instance that took the lock next finds it done.
 *   Waiting instances poll for that lock rather than block on it: a statement blocked on a lock holds
 *   a snapshot, and `CREATE INDEX CONCURRENTLY` waits for every older snapshot to end, which would
 *   be a deadlock. Nothing else is held while it builds (not the transaction-level migration lock).
 * - A run that failed mid-build leaves an INVALID index behind: it is dropped and built again.
 * - A build that succeeded but whose record was not written is kept (`IF NOT EXISTS`, which the
 *   migration policy requires of these statements).
 */
import type pg from "pg"

/** The session-level advisory lock around a migration outside the transaction (not the transaction's own). */
const OUTSIDE_TRANSACTION_LOCK = 0x7065_7402
const POLL_MS = 200

/** The index a `CREATE [UNIQUE] INDEX CONCURRENTLY [IF NOT EXISTS] name` statement builds, if it is one. */
export const concurrentIndexName = (statement: string): string | undefined =>
  /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?("?[\w.]+"?)/i.exec(statement)?.[1]

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Applies migration `id` on `client`, a connection in no transaction, unless another run applied it
 * already; whether this run did. `requires` is written with its record (as a transactional one's).
 */
export const applyOutsideTransaction = async (
  client: pg.ClientBase,
  migration: { readonly id: number; readonly name: string; readonly statements: ReadonlyArray<string> },
  requires: number
): Promise<boolean> => {
  // An index on a big table may take longer than a request's statement timeout.
  await client.query("SET statement_timeout = 0")
  try {
    for (;;) {
      const { rows: [got] } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [OUTSIDE_TRANSACTION_LOCK])
      if (got?.locked === true) break
      await sleep(POLL_MS)
    }
    try {
      const { rows: [done] } = await client.query("SELECT 1 FROM schema_migrations WHERE id = $1", [migration.id])
      if (done !== undefined) return false
      for (const statement of migration.statements) {
        const index = concurrentIndexName(statement)
        if (index !== undefined) {
          const { rows: [left] } = await client.query<{ valid: boolean }>(
            "SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)",
            [index]
          )
          if (left !== undefined && !left.valid) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`)
        }
        await client.query(statement)
      }
      await client.query(
        "INSERT INTO schema_migrations (id, name, requires_program) VALUES ($1, $2, $3)",
        [migration.id, migration.name, requires]
      )
      return true
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [OUTSIDE_TRANSACTION_LOCK])
    }
  } finally {
    await client.query("RESET statement_timeout")
  }
}
