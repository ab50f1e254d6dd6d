/**
 * Writes a `StoreSnapshot` (everything another store held) into an empty PostgreSQL database, in one
 * transaction: all of it or, on any failure, nothing. Pets keep their ids (new pets continue after
 * the highest), messages their state and submission order, keys their hashes, the limiter its daily
 * counts and bans, and cursors stay valid (the secret moves with them). A database that already
 * holds accounts, pets or messages is refused rather than merged.
 *
 * @since 1.0.0
 */
import { Data, Effect } from "effect"
import type { Errors, StoreSnapshot } from "@petstore/core"
import { ADMIN_TIMEOUT, Database, type Sql } from "./Database.js"

/** The target database already holds data; nothing was written. */
export class TargetNotEmpty extends Data.TaggedError("TargetNotEmpty")<{ readonly message: string }> {}

/** Rows per INSERT statement (PostgreSQL takes at most 65,535 parameters in one statement). */
const CHUNK = 1_000

const chunks = <A>(rows: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK))
  return out
}

const insertAll = async <A>(
  tx: Sql,
  table: string,
  rows: ReadonlyArray<A>,
  toRow: (a: A) => Record<string, unknown>
) => {
  for (const chunk of chunks(rows)) {
    const records = chunk.map(toRow)
    await tx`INSERT INTO ${tx(table)} ${tx(records as never, Object.keys(records[0]!) as never)}`
  }
}

class NotEmpty {
  constructor(readonly what: string) {}
}

/** @category constructors */
export const importSnapshot = (
  snapshot: StoreSnapshot.StoreSnapshot
): Effect.Effect<void, TargetNotEmpty | Errors.StoreUnavailable, Database> =>
  Effect.flatMap(Database, (db) =>
    db.run((sql) =>
      sql.begin(async (tx) => {
        const t = tx as unknown as Sql
        const [held] = await t<Array<{ accounts: boolean; pets: boolean; messages: boolean }>>`
          SELECT EXISTS (SELECT 1 FROM accounts) AS accounts, EXISTS (SELECT 1 FROM pets) AS pets,
            EXISTS (SELECT 1 FROM messages) AS messages`
        const what = Object.entries(held!).filter(([, v]) => v).map(([k]) => k)
        if (what.length > 0) return new NotEmpty(what.join(", "))
        await insertAll(t, "accounts", snapshot.accounts, (a) => ({
          id: a.id,
          plan: a.plan,
          per_minute: a.limits.perMinute,
          per_day: a.limits.perDay,
          created_at: a.createdAt
        }))
        await insertAll(t, "api_keys", snapshot.keys, (k) => ({
          id: k.id,
          account_id: k.accountId,
          hash: k.hash,
          prefix: k.prefix,
          created_at: k.createdAt,
          expires_at: k.expiresAt,
          revoked_at: k.revokedAt
        }))
        await insertAll(t, "pets", snapshot.pets, (p) => ({ id: p.id, name: p.name, category_id: p.categoryId, status: p.status }))
        await t`UPDATE pet_ids SET last = GREATEST(last, (SELECT coalesce(max(id), 0) FROM pets))`
        // Inserted in submission order, so `seq` keeps it.
        await insertAll(t, "messages", snapshot.messages, (m) => ({
          id: m.id,
          account_id: m.accountId,
          message: m.message,
          status: m.status,
          created_at: m.createdAt,
          updated_at: m.updatedAt,
          attempts: m.attempts,
          available_at: m.availableAt,
          lease_until: m.leaseUntil,
          last_error: m.lastError
        }))
        await t`DELETE FROM limiter_quotas`
        await t`DELETE FROM limiter_standings`
        await insertAll(t, "limiter_quotas", snapshot.limiter.quotas, ([id, q]) => ({ account_id: id, day: q.day, used: q.used }))
        await insertAll(t, "limiter_standings", snapshot.limiter.standings, ([id, s]) => ({
          key_id: id,
          wait_until: s.waitUntil,
          strikes: s.strikes,
          banned_until: s.bannedUntil,
          bans: s.bans,
          last_ban_at: s.lastBanAt
        }))
        if (snapshot.cursorSecret !== undefined) {
          await t`INSERT INTO secrets (name, value) VALUES ('cursor-hmac', ${Buffer.from(snapshot.cursorSecret)})
                  ON CONFLICT (name) DO UPDATE SET value = excluded.value`
        }
        return undefined
      }), ADMIN_TIMEOUT
    ).pipe(
      Effect.flatMap((outcome) =>
        outcome instanceof NotEmpty
          ? Effect.fail(
            new TargetNotEmpty({ message: `the PostgreSQL database already holds ${outcome.what}; import only into an empty database` })
          )
          : Effect.void
      )
    ))
