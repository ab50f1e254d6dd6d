/**
 * `LimiterStateStore` on SQLite: the rate limiter's daily counts and key standings, written behind
 * by the core's `LimiterPersistence` in one group-committed transaction per flush.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { BanPolicy, DailyQuota } from "@petstore/core"
import { LimiterStateStore } from "@petstore/core"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

/** `limiter_quotas` read under `DailyQuotaState`'s field names, with the account (here and in `Export`). */
export const QUOTA_COLUMNS = `account_id AS "accountId", day, used`
/**
 * `limiter_standings` read under `KeyStanding`'s field names, with the key. The grace of a wait is
 * not kept, so a restart ends it (see docs/decisions.md).
 */
export const STANDING_COLUMNS = `key_id AS "keyId", wait_until AS "waitUntil", 0 AS "graceUntil", strikes,
  banned_until AS "bannedUntil", bans, last_ban_at AS "lastBanAt"`

/** The quotas of rows read with `QUOTA_COLUMNS`, by account. */
export const quotasOf = (rows: ReadonlyArray<unknown>) =>
  (rows as ReadonlyArray<DailyQuota.DailyQuotaState & { readonly accountId: string }>).map(
    ({ accountId, ...quota }) => [accountId, quota] as const
  )

/** The standings of rows read with `STANDING_COLUMNS`, by key. */
export const standingsOf = (rows: ReadonlyArray<unknown>) =>
  (rows as ReadonlyArray<BanPolicy.KeyStanding & { readonly keyId: string }>).map(({ keyId, ...standing }) => [keyId, standing] as const)

/** The limiter's durable state on SQLite. @category constructors */
export const make: Effect.Effect<LimiterStateStore.LimiterStateStore["Service"], never, Connection | Database> = Effect.gen(
  function*() {
    const connection = yield* Connection
    const db = yield* Database
    const dropOldQuotas = connection.prepare("DELETE FROM limiter_quotas WHERE day < ?")
    const dropOldStandings = connection.prepare(
      "DELETE FROM limiter_standings WHERE banned_until <= ? AND wait_until <= ?"
    )
    const allQuotas = connection.prepare(`SELECT ${QUOTA_COLUMNS} FROM limiter_quotas`)
    const allStandings = connection.prepare(`SELECT ${STANDING_COLUMNS} FROM limiter_standings`)
    // Per account and day the highest count saved is kept (as on a store shared by instances).
    const saveQuota = connection.prepare(
      `INSERT INTO limiter_quotas (account_id, day, used) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET
         used = CASE WHEN excluded.day > day THEN excluded.used WHEN excluded.day = day THEN max(used, excluded.used) ELSE used END,
         day = max(day, excluded.day)`
    )
    const saveStanding = connection.prepare(
      `INSERT INTO limiter_standings (key_id, wait_until, strikes, banned_until, bans, last_ban_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_id) DO UPDATE SET wait_until = excluded.wait_until, strikes = excluded.strikes,
         banned_until = excluded.banned_until, bans = excluded.bans, last_ban_at = excluded.last_ban_at`
    )
    return LimiterStateStore.LimiterStateStore.of({
      load: (today, now, forgetBefore) =>
        Effect.andThen(
          db.write(() => {
            dropOldQuotas.run(today)
            dropOldStandings.run(forgetBefore, now)
          }),
          db.read(() => ({
            quotas: quotasOf(allQuotas.all()),
            standings: standingsOf(allStandings.all())
          }))
        ),
      save: ({ quotas, standings }) =>
        db.write(() => {
          for (const [id, q] of quotas) saveQuota.run(id, q.day, q.used)
          for (const [id, s] of standings) saveStanding.run(id, s.waitUntil, s.strikes, s.bannedUntil, s.bans, s.lastBanAt)
        })
    })
  }
)

/** The limiter's durable state on SQLite, as a layer. @category layers */
export const layer: Layer.Layer<LimiterStateStore.LimiterStateStore, never, Connection | Database> = Layer.effect(
  LimiterStateStore.LimiterStateStore,
  make
)
