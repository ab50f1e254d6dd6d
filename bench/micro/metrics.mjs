// What metrics add to one request: a whole GET through the application of `serve` (in memory, a
// kept page, so answered within the call that runs it) with metrics on against off; then the pieces,
// each against the same call without metrics: the application's `record` hook (counted by route
// and status, with its duration), the limiter's decision (its verdict counted), and a store call
// answered at once (timed, errors counted; a GET makes two: the key, its account).
import { AccountStore, BanPolicy, RateLimiter } from "@petstore/core"
import { CountedOutcomes, InstrumentedStores, Metrics } from "@petstore/server"
import { Effect } from "effect"
import { PAGE_LIMIT } from "../fixture.mjs"
import { application as shared } from "./application.mjs"
import { consume, nsPerOp, nsPerOpBatched, QUICK, report } from "./harness.mjs"

/** The application with metrics on or off, and a GET /v1/pets?limit=20 of its key answered at once. */
const application = async (metricsOn) => {
  const app = await shared({ PETSTORE_METRICS: String(metricsOn) })
  const request = app.request("GET", `/v1/pets?limit=${PAGE_LIMIT}`)
  const handle = app.handle
  // Answered as the server answers it (a fiber of its own, its exit observed); a request that waits,
  // and so ends after the call, is not what is measured here.
  let status = 0
  const get = () => {
    status = 0
    app.fork(handle(request)).addObserver((exit) => (status = exit.value.status))
    if (status === 0) throw new Error("a GET of a kept page was not answered at once")
    return status
  }
  // The first GET reads the page from the store and keeps it; from the second on, it is answered at once.
  await Effect.runPromise(handle(request))
  if (get() !== 200) throw new Error("a GET of a kept page was not answered 200")
  return { get, close: app.close }
}

const metrics = new Metrics.Metrics()
const response = { status: 200, headers: {}, body: "[]", route: "GET /v1/pets" }

const limiter = RateLimiter.makeMemory({ ...RateLimiter.DEFAULT_OPTIONS, ban: BanPolicy.DEFAULT_OPTIONS })
const counted = CountedOutcomes.countVerdicts(limiter, metrics)
const subject = { accountId: "acc_1", keyId: "key_1", limits: { perMinute: 1_000_000_000, perDay: 1_000_000_000_000 } }

const accounts = AccountStore.makeMemory()
const instrumented = InstrumentedStores.instrument("AccountStore", accounts, { metrics, tracing: false })

// Each call made and run as a request's stage runs it: inside the request's running fiber, many calls
// to one fiber so that starting it is not counted.
const inFiber = (call) => (n) =>
  Effect.runSync(Effect.gen(function*() {
    for (let i = 0; i < n; i++) consume(yield* call())
  }))
const calls = QUICK ? 100_000 : 300_000
const record = nsPerOp((i) => metrics.request(response.route, response.status, (i & 7) * 1e-4))
const plainAdmit = nsPerOpBatched(inFiber(() => limiter.admit(subject)), calls)
const countedAdmit = nsPerOpBatched(inFiber(() => counted.admit(subject)), calls)
const plainFind = nsPerOpBatched(inFiber(() => accounts.findKeyByHash("hash")), calls)
const instrumentedFind = nsPerOpBatched(inFiber(() => instrumented.findKeyByHash("hash")), calls)

// Whole GETs through the application, each answered within the call that runs it: metrics on against off.
const getOn = await application(true)
const getOff = await application(false)
// On and off alternate, sample by sample, so that drift of a shared machine falls on both; medians.
const ons = []
const offs = []
for (let k = 0; k < (QUICK ? 5 : 11); k++) {
  ons.push(nsPerOp(getOn.get, { samples: 1, warmupMs: 50 }))
  offs.push(nsPerOp(getOff.get, { samples: 1, warmupMs: 50 }))
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const wholeOn = median(ons)
const wholeOff = median(offs)
const wholeAdded = median(ons.map((on, k) => on - offs[k]))
// The services' message worker and limiter timers would keep the process alive.
await Promise.all([getOn.close(), getOff.close()])

report("metrics", [
  { id: "get-on", label: "GET /v1/pets?limit=20 through App.handle (in memory, answered at once), metrics on", value: wholeOn, unit: "ns" },
  { id: "get-off", label: "the same, metrics off (PETSTORE_METRICS=false)", value: wholeOff, unit: "ns" },
  { id: "get-added", label: "GET: metrics on − off (median of the paired samples)", value: wholeAdded, unit: "ns" },
  { id: "request-record", label: "the application's record hook: Metrics.request (route lookup, status count, histogram bucket)", value: record, unit: "ns" },
  { id: "admit-added", label: "RateLimiter.admit counted − uncounted (memory, at the request's time)", value: countedAdmit - plainAdmit, unit: "ns" },
  { id: "store-call-added", label: "store call instrumented − plain (AccountStore.findKeyByHash in memory, tracing off)", value: instrumentedFind - plainFind, unit: "ns" },
  { id: "per-request", label: "per request (record + admit + one store call added)", value: record + countedAdmit - plainAdmit + instrumentedFind - plainFind, unit: "ns" }
])
