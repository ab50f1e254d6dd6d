/**
 * An account's usage (`GET /admin/v1/accounts/{id}/usage`) over 24 hours, 7 days, 30 days or 13
 * months: the total and each key's, with the plan's limit drawn (per hour: the per-minute limit
 * times 60; per day: the per-day limit).
 */
import { useState } from "preact/hooks"
import { get } from "../api.js"
import type { Series } from "../series.js"
import { Chart } from "./Chart.js"
import { ErrorText } from "./ErrorText.js"
import { type Range, RANGES, usageQuery } from "./usageRange.js"
import { useLoad } from "./useLoad.js"

interface Usage {
  readonly granularity: "hour" | "day"
  readonly buckets: ReadonlyArray<{ readonly start: string; readonly total: number }>
  readonly byKey: ReadonlyArray<{ readonly keyId: string; readonly prefix: string; readonly buckets: ReadonlyArray<{ readonly total: number }> }>
  readonly limits: { readonly minute: { readonly limit: number }; readonly day: { readonly limit: number } }
}

const COLORS = ["#1565c0", "#ef6c00", "#6a1b9a", "#00838f", "#5d4037", "#c2185b", "#558b2f", "#283593", "#f9a825", "#37474f"]

const seriesOf = (usage: Usage): Array<Series> => [
  { label: "total", color: "#2e7d32", values: usage.buckets.map((b) => b.total) },
  ...usage.byKey.map((k, i) => ({ label: k.prefix, color: COLORS[i % COLORS.length]!, values: k.buckets.map((b) => b.total) }))
]

/** The usage section: range buttons and the chart. */
export const UsageSection = ({ accountId }: { readonly accountId: string }) => {
  const [range, setRange] = useState<Range>("24h")
  const usage = useLoad(
    () => get<Usage>(`/admin/v1/accounts/${encodeURIComponent(accountId)}/usage?${usageQuery(range, new Date())}`),
    [accountId, range]
  )
  const value = usage.value
  const limit = value === undefined
    ? undefined
    : value.granularity === "hour"
    ? { label: "limit per hour (per minute × 60)", value: value.limits.minute.limit * 60 }
    : { label: "limit per day", value: value.limits.day.limit }
  return (
    <section aria-labelledby="usage">
      <h2 id="usage">Usage</h2>
      <div role="group" aria-label="Range" class="ranges">
        {RANGES.map((r) => (
          <button type="button" key={r.id} aria-pressed={range === r.id} onClick={() => setRange(r.id)}>{r.label}</button>
        ))}
      </div>
      <ErrorText error={usage.error} />
      {value
        ? <Chart id="usage-account" title={`Requests per ${value.granularity}, total and by key`} starts={value.buckets.map((b) => b.start)} series={seriesOf(value)} limit={limit} />
        : null}
    </section>
  )
}
