/**
 * `UsageStore` on SQLite: each flush one group-committed write that records the batch's name and
 * adds its rows to the hourly and daily buckets (additive upserts), or does nothing when the name is
 * already recorded.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { UsageStore } from "@petstore/core"
import * as Columns from "./internal/columns.js"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

const TABLES = { hour: "usage_hourly", day: "usage_daily" } as const

/** The count columns of the usage tables, each with the `Counts` field it holds. */
const COUNTS: ReadonlyArray<Columns.Column<UsageStore.Counts>> = [
  ["allowed", "allowed"],
  ["rate_limited", "rateLimited"],
  ["quota_exceeded", "quotaExceeded"],
  ["banned", "banned"],
  ["client_errors", "clientErrors"],
  ["server_errors", "serverErrors"]
]
const COUNT_COLUMNS = Columns.names(COUNTS)
const SUMS = COUNTS.map(([column, field]) => `sum(${column}) AS "${field}"`).join(", ")

/** The usage store on SQLite. @category constructors */
export const make: Effect.Effect<UsageStore.UsageStore["Service"], never, Connection | Database> = Effect.gen(function*() {
  const connection = yield* Connection
  const db = yield* Database
  const claim = connection.prepare("INSERT OR IGNORE INTO usage_flushes (instance_id, seq, at) VALUES (?, ?, ?)")
  const statements = (table: string) => ({
    add: connection.prepare(
      `INSERT INTO ${table} (account_id, start, key_id, ${COUNT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, start, key_id) DO UPDATE SET
         allowed = allowed + excluded.allowed, rate_limited = rate_limited + excluded.rate_limited,
         quota_exceeded = quota_exceeded + excluded.quota_exceeded, banned = banned + excluded.banned,
         client_errors = client_errors + excluded.client_errors, server_errors = server_errors + excluded.server_errors`
    ),
    read: connection.prepare(
      `SELECT key_id AS "keyId", start, ${Columns.selectList(COUNTS)} FROM ${table} WHERE account_id = ? AND start >= ? AND start < ?`
    ),
    totals: connection.prepare(
      `SELECT account_id AS "accountId", ${SUMS} FROM ${table} WHERE start >= ? AND start < ? GROUP BY account_id`
    ),
    sums: connection.prepare(`SELECT start, ${SUMS} FROM ${table} WHERE start >= ? AND start < ? GROUP BY start`),
    sweep: connection.prepare(`DELETE FROM ${table} WHERE start < ?`)
  })
  const tables = { hour: statements(TABLES.hour), day: statements(TABLES.day) }
  const sweepFlushes = connection.prepare("DELETE FROM usage_flushes WHERE at < ?")

  const addRow = (row: UsageStore.UsageRow) => {
    const values = Columns.values(COUNTS, row.counts)
    tables.hour.add.run(row.accountId, row.hour, row.keyId, ...values)
    tables.day.add.run(row.accountId, UsageStore.bucketStart("day", row.hour), row.keyId, ...values)
  }

  return UsageStore.UsageStore.of({
    flush: (batch) =>
      db.write(() => {
        if (claim.run(batch.instanceId, batch.seq, batch.at).changes === 0) return false
        for (const row of batch.rows) addRow(row)
        return true
      }),
    read: (accountId, granularity, from, to) =>
      db.read(() =>
        (tables[granularity].read.all(accountId, from, to) as Array<UsageStore.Counts & { keyId: string; start: number }>).map((
          { keyId, start, ...counts }
        ) => ({ keyId, start, counts }))
      ),
    sum: (granularity, from, to) =>
      db.read(() =>
        (tables[granularity].sums.all(from, to) as Array<UsageStore.Counts & { start: number }>).map(({ start, ...counts }) => ({ start, counts }))
      ),
    top: (granularity, from, to, by, limit) =>
      db.read(() =>
        UsageStore.rank(
          (tables[granularity].totals.all(from, to) as Array<UsageStore.Counts & { accountId: string }>).map((counts) => ({
            accountId: counts.accountId,
            total: UsageStore.total(counts),
            refused: UsageStore.refused(counts)
          })),
          by,
          limit
        )
      ),
    sweep: ({ dailyBefore, flushesBefore, hourlyBefore }) =>
      db.write(() =>
        tables.hour.sweep.run(hourlyBefore).changes + tables.day.sweep.run(dailyBefore).changes +
        sweepFlushes.run(flushesBefore).changes
      )
  })
})

/** The usage store on SQLite, as a layer. @category layers */
export const layer: Layer.Layer<UsageStore.UsageStore, never, Connection | Database> = Layer.effect(UsageStore.UsageStore, make)
