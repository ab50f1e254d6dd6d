/**
 * The usage counts of one instance, in memory, until they are flushed. On the request path
 * `record` is one `Map` lookup and one or two increments of a typed array (no allocation once a
 * key has been seen this hour, no I/O, no Effect); `drain` hands everything counted since the last
 * drain over as rows and starts again from zero.
 *
 * @since 1.0.0
 */
import type { Verdict } from "./LimitDecision.js"
import { type Counts, HOUR_MILLIS, type UsageRow } from "./UsageStore.js"

/** The slot a verdict counts in (the order of `UsageStore.COUNTERS`). */
const VERDICT_SLOT: { readonly [V in Verdict]: number } = {
  allowed: 0,
  rate_limited: 1,
  daily_quota_exceeded: 2,
  key_banned: 3
}
const CLIENT_ERRORS = 4
const SERVER_ERRORS = 5

interface Slot {
  readonly accountId: string
  readonly keyId: string
  readonly counts: Float64Array
}

/** The in-memory counts of decided requests, drained into the usage store. */
export interface UsageCounter {
  /** Counts one decided request of `keyId` (of `accountId`), answered with `status`, at `now` (epoch ms). */
  readonly record: (accountId: string, keyId: string, verdict: Verdict, status: number, now: number) => void
  /** Everything counted since the last drain, as rows (one per key and hour), and the counts reset. */
  readonly drain: () => ReadonlyArray<UsageRow>
}

const countsOf = (c: Float64Array): Counts => ({
  allowed: c[0]!,
  rateLimited: c[1]!,
  quotaExceeded: c[2]!,
  banned: c[3]!,
  clientErrors: c[4]!,
  serverErrors: c[5]!
})

/** A new, empty usage counter. @category constructors */
export const make = (): UsageCounter => {
  // The hour being counted and its slots by key id; the hours before it wait here for the drain.
  let hourStart = Number.NaN
  let hourEnd = Number.NaN
  let current = new Map<string, Slot>()
  let closed: Array<{ readonly hour: number; readonly slots: Map<string, Slot> }> = []

  /** A request of another hour (the next one, or an earlier one when the clock went back). */
  const moveTo = (now: number) => {
    if (current.size > 0) closed.push({ hour: hourStart, slots: current })
    current = new Map()
    hourStart = Math.floor(now / HOUR_MILLIS) * HOUR_MILLIS
    hourEnd = hourStart + HOUR_MILLIS
  }

  const record = (accountId: string, keyId: string, verdict: Verdict, status: number, now: number): void => {
    if (!(now < hourEnd && now >= hourStart)) moveTo(now)
    let slot = current.get(keyId)
    if (slot === undefined) {
      slot = { accountId, keyId, counts: new Float64Array(6) }
      current.set(keyId, slot)
    }
    const counts = slot.counts
    const at = VERDICT_SLOT[verdict]
    counts[at]!++
    if (at === 0 && status >= 400) counts[status >= 500 ? SERVER_ERRORS : CLIENT_ERRORS]!++
  }

  const drain = (): ReadonlyArray<UsageRow> => {
    const hours = closed
    if (current.size > 0) hours.push({ hour: hourStart, slots: current })
    closed = []
    current = new Map()
    // The same hour twice only when the clock went back and forth: its slots merged by key id (the
    // drained slots are no longer counted into, so they are merged in place).
    const byHour = new Map<number, Map<string, Slot>>()
    for (const { hour, slots } of hours) {
      const into = byHour.get(hour)
      if (into === undefined) {
        byHour.set(hour, slots)
        continue
      }
      for (const slot of slots.values()) {
        const row = into.get(slot.keyId)
        if (row === undefined) into.set(slot.keyId, slot)
        else for (let i = 0; i < 6; i++) row.counts[i]! += slot.counts[i]!
      }
    }
    const rows: Array<UsageRow> = []
    for (const [hour, slots] of byHour) {
      for (const slot of slots.values()) rows.push({ accountId: slot.accountId, keyId: slot.keyId, hour, counts: countsOf(slot.counts) })
    }
    return rows
  }

  return { record, drain }
}
