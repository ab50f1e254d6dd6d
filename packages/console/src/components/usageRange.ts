/** The ranges of an account's usage chart and the query each asks `/admin/v1/accounts/{id}/usage` for. */

/** A range's id. */
export type Range = "24h" | "7d" | "30d" | "13mo"

/** The ranges, in the order shown. */
export const RANGES: ReadonlyArray<{ readonly id: Range; readonly label: string }> = [
  { id: "24h", label: "24 hours" },
  { id: "7d", label: "7 days" },
  { id: "30d", label: "30 days" },
  { id: "13mo", label: "13 months" }
]

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** `from`, `to` and `granularity` of a range ending now (hours: 24 or 168 buckets; days: 30, or 13 months of days), and up to 10 keys. */
export const usageQuery = (range: Range, now: Date): string => {
  // The last 24 hours are the read's own default range (24 buckets, up to the end of this hour).
  if (range === "24h") return "granularity=hour&keys=10"
  // Whole buckets: `to` the end of the current hour (or day), `from` that many buckets before.
  const hourEnd = Math.ceil((now.getTime() + 1) / HOUR) * HOUR
  const dayEnd = Math.ceil((now.getTime() + 1) / DAY) * DAY
  const end = new Date(dayEnd)
  const [from, to, granularity] = range === "7d"
    ? [hourEnd - 7 * DAY, hourEnd, "hour"]
    : range === "30d"
    ? [dayEnd - 30 * DAY, dayEnd, "day"]
    : [Date.UTC(end.getUTCFullYear() - 1, end.getUTCMonth() - 1, end.getUTCDate()), dayEnd, "day"]
  return new URLSearchParams({
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    granularity: String(granularity),
    keys: "10"
  }).toString()
}
