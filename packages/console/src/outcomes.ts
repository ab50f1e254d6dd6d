/** A usage bucket (as `/v1/usage` and the admin usage reads answer it) and its outcomes as chart series. */
import type { Series } from "./series.js"

/** One bucket of usage. */
export interface Bucket {
  readonly start: string
  readonly total: number
  readonly allowed: number
  readonly rateLimited: number
  readonly quotaExceeded: number
  readonly banned: number
  readonly clientErrors: number
  readonly serverErrors: number
}

/**
 * The outcomes that add up to the total: allowed split into its successes, 4xx and 5xx, then the
 * refusals (rate limited, quota, banned).
 */
export const outcomeSeries = (buckets: ReadonlyArray<Bucket>): Array<Series> => [
  { label: "allowed", color: "#2e7d32", values: buckets.map((b) => b.allowed - b.clientErrors - b.serverErrors) },
  { label: "4xx", color: "#f9a825", values: buckets.map((b) => b.clientErrors) },
  { label: "5xx", color: "#6a1b9a", values: buckets.map((b) => b.serverErrors) },
  { label: "rate limited", color: "#ef6c00", values: buckets.map((b) => b.rateLimited) },
  { label: "quota", color: "#1565c0", values: buckets.map((b) => b.quotaExceeded) },
  { label: "banned", color: "#424242", values: buckets.map((b) => b.banned) }
]
