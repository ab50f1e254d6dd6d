/**
 * `petstore usage` as text: a table of buckets (or of accounts) with a small bar per row, its
 * allowed part `█` in green and its refused part `▒` in red. The colours are ANSI escapes, which
 * the command line's plain output takes out when standard output is not a terminal or `NO_COLOR`
 * is set (`PlainOutput`); the two characters still tell the parts apart.
 */
import { UsageStore } from "@petstore/core"

/** The widest bar, in characters. */
export const BAR_WIDTH = 30

const GREEN = "\x1b[32m"
const RED = "\x1b[31m"
const RESET = "\x1b[0m"

/** A bar of `allowed` then `refused` on a scale where `max` fills `BAR_WIDTH`; at least one character for anything above zero. */
export const bar = (allowed: number, refused: number, max: number): string => {
  if (max === 0) return ""
  const cells = (n: number) => (n === 0 ? 0 : Math.max(1, Math.round((n / max) * BAR_WIDTH)))
  const a = cells(allowed)
  const r = cells(refused)
  return `${a === 0 ? "" : `${GREEN}${"█".repeat(a)}${RESET}`}${r === 0 ? "" : `${RED}${"▒".repeat(r)}${RESET}`}`
}

const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (i === r.length - 1 ? 0 : r[i]!.length))))
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ").trimEnd()).join("\n")
}

/** A label for a bucket's start: `2026-11-26 10:00` for hours, `2026-11-26` for days (UTC). */
export const label = (granularity: UsageStore.Granularity, start: number): string => {
  const iso = new Date(start).toISOString()
  return granularity === "hour" ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10)
}

/** The buckets as a table, one row each, with the bar scaled to the busiest. */
export const buckets = (
  granularity: UsageStore.Granularity,
  rows: ReadonlyArray<{ readonly start: number; readonly counts: UsageStore.Counts }>
): string => {
  const max = Math.max(0, ...rows.map((r) => UsageStore.total(r.counts)))
  return table([
    ["START (UTC)", "TOTAL", "ALLOWED", "RATE", "QUOTA", "BANNED", "4XX", "5XX", ""],
    ...rows.map(({ counts: c, start }) => [
      label(granularity, start),
      String(UsageStore.total(c)),
      String(c.allowed),
      String(c.rateLimited),
      String(c.quotaExceeded),
      String(c.banned),
      String(c.clientErrors),
      String(c.serverErrors),
      bar(c.allowed, UsageStore.refused(c), max)
    ])
  ])
}

/** The busiest accounts as a table, with the bar scaled to the first. */
export const top = (accounts: ReadonlyArray<UsageStore.AccountTotals>): string => {
  const max = Math.max(0, ...accounts.map((a) => a.total))
  return table([
    ["ACCOUNT", "TOTAL", "REFUSED", ""],
    ...accounts.map((a) => [a.accountId, String(a.total), String(a.refused), bar(a.total - a.refused, a.refused, max)])
  ])
}
