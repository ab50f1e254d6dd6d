// Rate-limiter decision cost: the pure core step (LimitDecision.decide), the RateLimiter service's
// `admit(subject)` as a request's stage runs it (state lookup + decide + store, inside the request's
// running fiber), and `admit` run as its own fiber (what a caller outside Effect would pay).
import { BanPolicy, LimitDecision, RateLimiter } from "@petstore/core"
import { Effect } from "effect"
import { consume, nsPerOp, nsPerOpBatched, QUICK, report } from "./harness.mjs"

const LIMITS = { perMinute: 1_000_000, perDay: 1_000_000_000 }
const ACCOUNTS = 100_000
const subjects = Array.from({ length: ACCOUNTS }, (_, i) => ({ accountId: `acc_${i}`, keyId: `key_${i}`, limits: LIMITS }))

// One account, its state carried from one decision to the next; the clock moves 1 ms per decision.
let usage = LimitDecision.freshUsage(LIMITS, Date.now())
let t = Date.now()
const decideOne = () => {
  const next = LimitDecision.decide(LIMITS, usage, BanPolicy.CLEAN, t++, 1, BanPolicy.DEFAULT_OPTIONS)
  usage = next.usage
  return next.decision.binding.remaining
}

// Many accounts: state in a Map, as the service keeps it, walked round-robin (cache misses included).
const states = new Map()
const decideMany = (i) => {
  const s = subjects[i % ACCOUNTS]
  const before = states.get(s.accountId) ?? LimitDecision.freshUsage(LIMITS, t)
  const next = LimitDecision.decide(LIMITS, before, BanPolicy.CLEAN, t, 1, BanPolicy.DEFAULT_OPTIONS)
  states.set(s.accountId, next.usage)
  if ((i & 1023) === 0) t++
  return next.decision.binding.remaining
}

const limiter = RateLimiter.makeMemory(RateLimiter.DEFAULT_OPTIONS)
const admitInFiber = (n) =>
  Effect.runSync(Effect.gen(function*() {
    let x = 0
    for (let i = 0; i < n; i++) x += (yield* limiter.admit(subjects[i % ACCOUNTS])).binding.remaining
    consume(x)
  }))

// What the HTTP adapter does: a request runs in a fiber of its own, and its admit stage yields the
// limiter's decision there. So `admit-request` is measured as `admit-in-fiber` is (one measure since
// Effect 4, where no request is answered outside a fiber); both ids stay for bench/lib/report.mjs.

const n = QUICK ? 100_000 : 300_000
report("limiter", [
  {
    id: "decide-one",
    label: "LimitDecision.decide, one account (pure step)",
    value: nsPerOp(decideOne),
    unit: "ns"
  },
  {
    id: "decide-many",
    label: `LimitDecision.decide + Map state, ${ACCOUNTS.toLocaleString("en")} accounts round-robin`,
    value: nsPerOp(decideMany),
    unit: "ns"
  },
  {
    id: "admit-request",
    label: `RateLimiter.admit as the server runs it (inside the request's fiber), ${ACCOUNTS.toLocaleString("en")} accounts`,
    value: nsPerOpBatched(admitInFiber, n),
    unit: "ns"
  },
  {
    id: "admit-in-fiber",
    label: `RateLimiter.admit inside a running fiber, ${ACCOUNTS.toLocaleString("en")} accounts`,
    value: nsPerOpBatched(admitInFiber, n),
    unit: "ns"
  },
  {
    id: "admit-runSync",
    label: "RateLimiter.admit as its own fiber (Effect.runSync per decision)",
    value: nsPerOp((i) => Effect.runSync(limiter.admit(subjects[i % ACCOUNTS])).binding.remaining),
    unit: "ns",
    note: "not the server's path: a request already runs in a fiber"
  }
])
