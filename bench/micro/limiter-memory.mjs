// Memory of the rate limiter's state for 1M active accounts: heap after a full GC, before and after
// each account's first decision. The account and key id strings and the limits objects exist before
// the baseline (they belong to the account store, not the limiter), so only the limiter's own state
// is counted: its Map entries and per-account usage, plus the write-behind set of changed daily counts
// until `takeChanges` drains it. Run with --expose-gc.
import { RateLimiter } from "@petstore/core"
import { Effect } from "effect"
import { gc, QUICK, report } from "./harness.mjs"

const ACCOUNTS = QUICK ? 200_000 : 1_000_000
const SCALE = 1_000_000 / ACCOUNTS
const PLANS = [
  { perMinute: 60, perDay: 1_000 },
  { perMinute: 300, perDay: 10_000 },
  { perMinute: 1_000, perDay: 100_000 }
]
const subjects = new Array(ACCOUNTS)
for (let i = 0; i < ACCOUNTS; i++) {
  subjects[i] = { accountId: `acc_${i.toString(36).padStart(20, "0")}`, keyId: `key_${i.toString(36).padStart(20, "0")}`, limits: PLANS[i % 3] }
}

// Each id once as a Map key, before the baseline: V8 flattens (and on Node 26 internalizes) a string
// built by concatenation when it first becomes a key, which changes its size. Done here, that change
// is the account store's (whose ids are keys of its own maps), not counted as the limiter's; without
// it, Node 26 came out at −41 MB.
{
  const keys = new Map()
  for (const s of subjects) keys.set(s.accountId, s).set(s.keyId, s)
}

const heap = () => {
  gc()
  const m = process.memoryUsage()
  return { heap: m.heapUsed + m.external + m.arrayBuffers, rss: m.rss }
}

const limiter = RateLimiter.makeMemory(RateLimiter.DEFAULT_OPTIONS)
const before = heap()
Effect.runSync(Effect.gen(function*() {
  for (let i = 0; i < ACCOUNTS; i++) yield* limiter.admit(subjects[i])
}))
const afterAdmit = heap()
Effect.runSync(limiter.takeChanges)
const afterDrain = heap()
// Keep the limiter and the subjects alive until after the last measurement.
if (subjects.length !== ACCOUNTS || limiter === undefined) throw new Error("unreachable")

const mb = (bytes) => bytes / (1024 * 1024)
report("limiter-memory", [
  {
    id: "bytes-per-account",
    label: "limiter state per active account (after first decision, changes not yet drained)",
    value: (afterAdmit.heap - before.heap) / ACCOUNTS,
    unit: "B"
  },
  {
    id: "mb-1m-accounts",
    label: "limiter state for 1M active accounts (heap, after GC)",
    value: mb((afterAdmit.heap - before.heap) * SCALE),
    unit: "MB",
    note: QUICK ? `extrapolated from ${ACCOUNTS.toLocaleString("en")} accounts` : undefined
  },
  {
    id: "mb-1m-accounts-drained",
    label: "same, after takeChanges drained the write-behind set",
    value: mb((afterDrain.heap - before.heap) * SCALE),
    unit: "MB"
  },
  {
    id: "rss-1m-accounts",
    label: "resident set growth for 1M active accounts",
    value: mb((afterAdmit.rss - before.rss) * SCALE),
    unit: "MB"
  }
])
