/**
 * `UsageStore` on PostgreSQL, shared by every instance: each flush is one transaction that records
 * the batch's name (`ON CONFLICT DO NOTHING`) and, when it was new, adds its rows to the hourly and
 * daily buckets with additive upserts. Additions commute, so the instances' counts sum exactly; rows
 * are written in key order, so two instances flushing overlapping buckets never deadlock.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { UsageStore } from "@petstore/core"
import { Database, queryOn, statement } from "./Database.js"
import * as Table from "./internal/table.js"

/** The count columns of the usage tables, each with the `Counts` field it holds. */
const COUNTS: ReadonlyArray<Table.Column<UsageStore.Counts>> = [
  ["allowed", "int8", "allowed"],
  ["rate_limited", "int8", "rateLimited"],
  ["quota_exceeded", "int8", "quotaExceeded"],
  ["banned", "int8", "banned"],
  ["client_errors", "int8", "clientErrors"],
  ["server_errors", "int8", "serverErrors"]
]
const COUNT_COLUMNS = Table.names(COUNTS)
const SUMS = COUNTS.map(([column, , field]) => `sum(${column})::bigint AS "${String(field)}"`).join(", ")

const CLAIM = statement(
  "INSERT INTO usage_flushes (instance_id, seq, at) VALUES ($1, $2, $3) ON CONFLICT (instance_id, seq) DO NOTHING RETURNING 1 AS claimed"
)
/** A DELETE that answers how many rows it removed. */
const counted = (remove: string) => statement(`WITH removed AS (${remove} RETURNING 1) SELECT count(*)::int AS n FROM removed`)
const SWEEP_FLUSHES = counted("DELETE FROM usage_flushes WHERE at < $1")

const statements = (table: string) => ({
  add: statement(`
    INSERT INTO ${table} (account_id, start, key_id, ${COUNT_COLUMNS})
    SELECT * FROM unnest($1::text[], $2::int8[], $3::text[], ${Table.arrays(COUNTS, 4)})
    ON CONFLICT (account_id, start, key_id) DO UPDATE SET
      allowed = ${table}.allowed + excluded.allowed,
      rate_limited = ${table}.rate_limited + excluded.rate_limited,
      quota_exceeded = ${table}.quota_exceeded + excluded.quota_exceeded,
      banned = ${table}.banned + excluded.banned,
      client_errors = ${table}.client_errors + excluded.client_errors,
      server_errors = ${table}.server_errors + excluded.server_errors`),
  read: statement(`SELECT key_id AS "keyId", start, ${Table.selectList(COUNTS)} FROM ${table} WHERE account_id = $1 AND start >= $2 AND start < $3`),
  totals: statement(`SELECT account_id AS "accountId", ${SUMS} FROM ${table} WHERE start >= $1 AND start < $2 GROUP BY account_id`),
  sums: statement(`SELECT start, ${SUMS} FROM ${table} WHERE start >= $1 AND start < $2 GROUP BY start`),
  sweep: counted(`DELETE FROM ${table} WHERE start < $1`)
})
const TABLES = { hour: statements("usage_hourly"), day: statements("usage_daily") }

interface Bucketed {
  readonly accountId: string
  readonly start: number
  readonly keyId: string
  counts: UsageStore.Counts
}

/** `rows` summed per bucket of `granularity`, in primary-key order (one row per key: `unnest` must not repeat one). */
const bucketed = (rows: ReadonlyArray<UsageStore.UsageRow>, granularity: UsageStore.Granularity): ReadonlyArray<Bucketed> => {
  const sums = new Map<string, Bucketed>()
  for (const row of rows) {
    const start = UsageStore.bucketStart(granularity, row.hour)
    const id = `${row.accountId}\u0000${start}\u0000${row.keyId}`
    const bucket = sums.get(id)
    if (bucket === undefined) sums.set(id, { accountId: row.accountId, start, keyId: row.keyId, counts: row.counts })
    else bucket.counts = UsageStore.add(bucket.counts, row.counts)
  }
  return [...sums.values()].sort((a, b) =>
    a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.start - b.start || (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0)
  )
}

const columns = (buckets: ReadonlyArray<Bucketed>): ReadonlyArray<unknown> => [
  buckets.map((b) => b.accountId),
  buckets.map((b) => b.start),
  buckets.map((b) => b.keyId),
  ...Table.columnValues(COUNTS, buckets.map((b) => b.counts))
]

/** The usage store on PostgreSQL. @category constructors */
export const make: Effect.Effect<UsageStore.UsageStore["Service"], never, Database> = Effect.map(Database, (db) =>
  UsageStore.UsageStore.of({
    flush: (batch) =>
      db.transaction(async (client) => {
        const claimed = await queryOn(client, CLAIM, [batch.instanceId, batch.seq, batch.at])
        if (claimed.length === 0) return false
        if (batch.rows.length > 0) {
          await queryOn(client, TABLES.hour.add, columns(bucketed(batch.rows, "hour")))
          await queryOn(client, TABLES.day.add, columns(bucketed(batch.rows, "day")))
        }
        return true
      }),
    read: (accountId, granularity, from, to) =>
      Effect.map(
        db.query<UsageStore.Counts & { keyId: string; start: number }>(TABLES[granularity].read, [accountId, from, to]),
        (rows) => rows.map(({ keyId, start, ...counts }) => ({ keyId, start, counts }))
      ),
    sum: (granularity, from, to) =>
      Effect.map(
        db.query<UsageStore.Counts & { start: number }>(TABLES[granularity].sums, [from, to]),
        (rows) => rows.map(({ start, ...counts }) => ({ start, counts }))
      ),
    top: (granularity, from, to, by, limit) =>
      Effect.map(
        db.query<UsageStore.Counts & { accountId: string }>(TABLES[granularity].totals, [from, to]),
        (rows) =>
          UsageStore.rank(
            rows.map((counts) => ({ accountId: counts.accountId, total: UsageStore.total(counts), refused: UsageStore.refused(counts) })),
            by,
            limit
          )
      ),
    sweep: ({ dailyBefore, flushesBefore, hourlyBefore }) =>
      db.transaction(async (client) => {
        const removed = [
          await queryOn<{ n: number }>(client, TABLES.hour.sweep, [hourlyBefore]),
          await queryOn<{ n: number }>(client, TABLES.day.sweep, [dailyBefore]),
          await queryOn<{ n: number }>(client, SWEEP_FLUSHES, [flushesBefore])
        ]
        return removed.reduce((n, rows) => n + rows[0]!.n, 0)
      })
  }))

/** The usage store on PostgreSQL, as a layer. @category layers */
export const layer: Layer.Layer<UsageStore.UsageStore, never, Database> = Layer.effect(UsageStore.UsageStore, make)
