/**
 * `LimiterStateStore` on PostgreSQL: the rate limiter's daily counts and key standings, written
 * behind by the core's `LimiterPersistence`. Without Redis each instance limits on its own (the
 * limits are per instance), and all of them save here: per account and day the highest count any
 * of them saved is kept, and per key the latest wait and ban, so a restart never resets a used
 * quota nor lifts a ban.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { LimiterStateStore, StoreRows } from "@petstore/core"
import { Database, queryOn, statement } from "./Database.js"

const DROP_OLD_QUOTAS = statement("DELETE FROM limiter_quotas WHERE day < $1")
const DROP_OLD_STANDINGS = statement("DELETE FROM limiter_standings WHERE banned_until <= $1 AND wait_until <= $2")
const ALL_QUOTAS = statement("SELECT account_id, day, used FROM limiter_quotas")
const ALL_STANDINGS = statement("SELECT key_id, wait_until, strikes, banned_until, bans, last_ban_at FROM limiter_standings")
// Per account and day the highest count any instance saved is kept.
const SAVE_QUOTAS = statement(`
  INSERT INTO limiter_quotas (account_id, day, used)
  SELECT * FROM unnest($1::text[], $2::int4[], $3::int4[])
  ON CONFLICT (account_id) DO UPDATE SET
    used = CASE
      WHEN excluded.day > limiter_quotas.day THEN excluded.used
      WHEN excluded.day = limiter_quotas.day THEN GREATEST(limiter_quotas.used, excluded.used)
      ELSE limiter_quotas.used END,
    day = GREATEST(limiter_quotas.day, excluded.day)`)
const SAVE_STANDINGS = statement(`
  INSERT INTO limiter_standings (key_id, wait_until, strikes, banned_until, bans, last_ban_at)
  SELECT * FROM unnest($1::text[], $2::int8[], $3::int4[], $4::int8[], $5::int4[], $6::int8[])
  ON CONFLICT (key_id) DO UPDATE SET
    wait_until = GREATEST(limiter_standings.wait_until, excluded.wait_until),
    strikes = excluded.strikes,
    banned_until = GREATEST(limiter_standings.banned_until, excluded.banned_until),
    bans = GREATEST(limiter_standings.bans, excluded.bans),
    last_ban_at = GREATEST(limiter_standings.last_ban_at, excluded.last_ban_at)`)

/** The limiter's durable state on PostgreSQL. @category constructors */
export const make: Effect.Effect<LimiterStateStore.LimiterStateStore["Service"], never, Database> = Effect.map(
  Database,
  (db) =>
    LimiterStateStore.LimiterStateStore.of({
      load: (today, now, forgetBefore) =>
        db.transaction(async (client) => {
          await queryOn(client, DROP_OLD_QUOTAS, [today])
          await queryOn(client, DROP_OLD_STANDINGS, [forgetBefore, now])
          const quotas = await queryOn<StoreRows.QuotaRow>(client, ALL_QUOTAS, [])
          const standings = await queryOn<StoreRows.StandingRow>(client, ALL_STANDINGS, [])
          return {
            quotas: quotas.map(StoreRows.toQuota),
            standings: standings.map(StoreRows.toStanding)
          }
        }),
      save: (changes) =>
        db.transaction(async (client) => {
          // Rows are locked in id order, so instances saving overlapping accounts at once never deadlock.
          const quotas = [...changes.quotas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          const standings = [...changes.standings].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          if (quotas.length > 0) {
            await queryOn(client, SAVE_QUOTAS, [quotas.map(([id]) => id), quotas.map(([, q]) => q.day), quotas.map(([, q]) => q.used)])
          }
          if (standings.length > 0) {
            await queryOn(client, SAVE_STANDINGS, [
              standings.map(([id]) => id),
              standings.map(([, s]) => s.waitUntil),
              standings.map(([, s]) => s.strikes),
              standings.map(([, s]) => s.bannedUntil),
              standings.map(([, s]) => s.bans),
              standings.map(([, s]) => s.lastBanAt)
            ])
          }
        })
    })
)

/** The limiter's durable state on PostgreSQL, as a layer. @category layers */
export const layer: Layer.Layer<LimiterStateStore.LimiterStateStore, never, Database> = Layer.effect(
  LimiterStateStore.LimiterStateStore,
  make
)
