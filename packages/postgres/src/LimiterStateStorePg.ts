/**
 * `LimiterStateStore` on PostgreSQL: the rate limiter's daily counts and key standings, written
 * behind by the core's `LimiterPersistence`. Without Redis each instance limits on its own (the
 * limits are per instance), and all of them save here: per account and day the highest count any
 * of them saved is kept, and per key the latest wait and ban, so a restart never resets a used
 * quota nor lifts a ban.
 *
 * @since 1.0.0
 */
import { Effect, Layer } from "effect"
import { LimiterStateStore } from "@petstore/core"
import { Database } from "./Database.js"

interface QuotaRow {
  readonly account_id: string
  readonly day: number
  readonly used: number
}

interface StandingRow {
  readonly key_id: string
  readonly wait_until: number
  readonly strikes: number
  readonly banned_until: number
  readonly bans: number
  readonly last_ban_at: number
}

/** @category constructors */
export const make: Effect.Effect<LimiterStateStore.LimiterStateStore["Type"], never, Database> = Effect.map(
  Database,
  (db) =>
    LimiterStateStore.LimiterStateStore.of({
      load: (today, now, forgetBefore) =>
        db.run(async (sql) => {
          await sql`DELETE FROM limiter_quotas WHERE day < ${today}`
          await sql`DELETE FROM limiter_standings WHERE banned_until <= ${forgetBefore} AND wait_until <= ${now}`
          const quotas = await sql<Array<QuotaRow>>`SELECT account_id, day, used FROM limiter_quotas`
          const standings = await sql<Array<StandingRow>>`
            SELECT key_id, wait_until, strikes, banned_until, bans, last_ban_at FROM limiter_standings`
          return {
            quotas: quotas.map((r) => [r.account_id, { day: r.day, used: r.used }] as const),
            standings: standings.map((r) =>
              [r.key_id, {
                waitUntil: r.wait_until,
                strikes: r.strikes,
                bannedUntil: r.banned_until,
                bans: r.bans,
                lastBanAt: r.last_ban_at
              }] as const
            )
          }
        }),
      save: ({ quotas, standings }) =>
        db.run((sql) =>
          sql.begin(async (tx) => {
            if (quotas.length > 0) {
              await tx`
                INSERT INTO limiter_quotas (account_id, day, used)
                SELECT * FROM unnest(${quotas.map(([id]) => id)}::text[], ${quotas.map(([, q]) => q.day)}::int4[],
                  ${quotas.map(([, q]) => q.used)}::int4[])
                ON CONFLICT (account_id) DO UPDATE SET
                  used = CASE
                    WHEN excluded.day > limiter_quotas.day THEN excluded.used
                    WHEN excluded.day = limiter_quotas.day THEN GREATEST(limiter_quotas.used, excluded.used)
                    ELSE limiter_quotas.used END,
                  day = GREATEST(limiter_quotas.day, excluded.day)`
            }
            if (standings.length > 0) {
              await tx`
                INSERT INTO limiter_standings (key_id, wait_until, strikes, banned_until, bans, last_ban_at)
                SELECT * FROM unnest(${standings.map(([id]) => id)}::text[], ${standings.map(([, s]) => s.waitUntil)}::int8[],
                  ${standings.map(([, s]) => s.strikes)}::int4[], ${standings.map(([, s]) => s.bannedUntil)}::int8[],
                  ${standings.map(([, s]) => s.bans)}::int4[], ${standings.map(([, s]) => s.lastBanAt)}::int8[])
                ON CONFLICT (key_id) DO UPDATE SET
                  wait_until = GREATEST(limiter_standings.wait_until, excluded.wait_until),
                  strikes = excluded.strikes,
                  banned_until = GREATEST(limiter_standings.banned_until, excluded.banned_until),
                  bans = GREATEST(limiter_standings.bans, excluded.bans),
                  last_ban_at = GREATEST(limiter_standings.last_ban_at, excluded.last_ban_at)`
            }
          })
        ).pipe(Effect.asVoid)
    })
)

/** @category layers */
export const layer: Layer.Layer<LimiterStateStore.LimiterStateStore, never, Database> = Layer.effect(
  LimiterStateStore.LimiterStateStore,
  make
)
