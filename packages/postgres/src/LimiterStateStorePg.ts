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
import type { BanPolicy, DailyQuota, RateLimiter } from "@petstore/core"
import { LimiterStateStore } from "@petstore/core"
import { Database, queryOn, statement } from "./Database.js"
import * as Table from "./internal/table.js"

type QuotaEntry = RateLimiter.DurableLimiterState["quotas"][number]
type StandingEntry = RateLimiter.DurableLimiterState["standings"][number]
/** `limiter_quotas`, each column with what it holds of an account's quota: its statements' and `Import`'s. */
export const QUOTAS: Table.Table<QuotaEntry> = {
  name: "limiter_quotas",
  columns: [["account_id", "text", ([id]) => id], ["day", "int4", ([, q]) => q.day], ["used", "int4", ([, q]) => q.used]]
}
/** `limiter_standings`, each column with what it holds of a key's standing: its statements' and `Import`'s. */
export const STANDINGS: Table.Table<StandingEntry> = {
  name: "limiter_standings",
  columns: [
    ["key_id", "text", ([id]) => id],
    ["wait_until", "int8", ([, s]) => s.waitUntil],
    ["strikes", "int4", ([, s]) => s.strikes],
    ["banned_until", "int8", ([, s]) => s.bannedUntil],
    ["bans", "int4", ([, s]) => s.bans],
    ["last_ban_at", "int8", ([, s]) => s.lastBanAt]
  ]
}

const DROP_OLD_QUOTAS = statement("DELETE FROM limiter_quotas WHERE day < $1")
const DROP_OLD_STANDINGS = statement("DELETE FROM limiter_standings WHERE banned_until <= $1 AND wait_until <= $2")
// Read under the records' field names. The grace of a wait is not kept, so a restart ends it (see docs/decisions.md).
const ALL_QUOTAS = statement(`SELECT account_id AS "accountId", day, used FROM limiter_quotas`)
const ALL_STANDINGS = statement(
  `SELECT key_id AS "keyId", wait_until AS "waitUntil", 0 AS "graceUntil", strikes, banned_until AS "bannedUntil", bans,
     last_ban_at AS "lastBanAt" FROM limiter_standings`
)
// Per account and day the highest count any instance saved is kept.
const SAVE_QUOTAS = statement(`
  INSERT INTO limiter_quotas (${Table.names(QUOTAS.columns)})
  SELECT * FROM unnest(${Table.arrays(QUOTAS.columns)})
  ON CONFLICT (account_id) DO UPDATE SET
    used = CASE
      WHEN excluded.day > limiter_quotas.day THEN excluded.used
      WHEN excluded.day = limiter_quotas.day THEN GREATEST(limiter_quotas.used, excluded.used)
      ELSE limiter_quotas.used END,
    day = GREATEST(limiter_quotas.day, excluded.day)`)
const SAVE_STANDINGS = statement(`
  INSERT INTO limiter_standings (${Table.names(STANDINGS.columns)})
  SELECT * FROM unnest(${Table.arrays(STANDINGS.columns)})
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
          const quotas = await queryOn<DailyQuota.DailyQuotaState & { accountId: string }>(client, ALL_QUOTAS, [])
          const standings = await queryOn<BanPolicy.KeyStanding & { keyId: string }>(client, ALL_STANDINGS, [])
          return {
            quotas: quotas.map(({ accountId, ...quota }) => [accountId, quota] as const),
            standings: standings.map(({ keyId, ...standing }) => [keyId, standing] as const)
          }
        }),
      save: (changes) =>
        db.transaction(async (client) => {
          // Rows are locked in id order, so instances saving overlapping accounts at once never deadlock.
          const quotas = [...changes.quotas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          const standings = [...changes.standings].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          if (quotas.length > 0) {
            await queryOn(client, SAVE_QUOTAS, Table.columnValues(QUOTAS.columns, quotas))
          }
          if (standings.length > 0) {
            await queryOn(client, SAVE_STANDINGS, Table.columnValues(STANDINGS.columns, standings))
          }
        })
    })
)

/** The limiter's durable state on PostgreSQL, as a layer. @category layers */
export const layer: Layer.Layer<LimiterStateStore.LimiterStateStore, never, Database> = Layer.effect(
  LimiterStateStore.LimiterStateStore,
  make
)
