// What metrics add to one request, measured on the pieces the server wraps (each against the same
// call unwrapped): the application's `handle` answering at once (counted by route and status, timed
// with two performance.now() calls), the limiter's decision (its verdict counted), and a store call
// that answers at once (timed, errors counted). A GET with every step answered at once goes through
// the first two; a key looked up in the store, the third too.
import { AccountStore, BanPolicy, RateLimiter } from "@petstore/core"
import { CountedOutcomes, InstrumentedStores, MeteredApp, Metrics } from "@petstore/server"
import { Exit } from "effect"
import { nsPerOp, report } from "./harness.mjs"

const metrics = new Metrics.Metrics()
const response = { status: 200, headers: {}, body: "[]", route: "GET /v1/pets" }
const app = { handle: () => Exit.succeed(response), paths: undefined }
const metered = MeteredApp.meter(app, metrics)
const request = { method: "GET", url: "/v1/pets", header: () => undefined, remoteAddress: "127.0.0.1", readBody: () => Exit.succeed({ _tag: "Body", bytes: new Uint8Array() }) }

const limiter = RateLimiter.makeMemory({ ...RateLimiter.DEFAULT_OPTIONS, ban: BanPolicy.DEFAULT_OPTIONS })
const counted = CountedOutcomes.countVerdicts(limiter, metrics)
const subject = { accountId: "acc_1", keyId: "key_1", limits: { perMinute: 1_000_000_000, perDay: 1_000_000_000_000 } }
let now = Date.now()

const accounts = AccountStore.makeMemory()
const instrumented = InstrumentedStores.instrument("AccountStore", accounts, { metrics, tracing: false })

const plainHandle = nsPerOp(() => app.handle(request))
const meteredHandle = nsPerOp(() => metered.handle(request))
const plainAdmit = nsPerOp(() => limiter.admit(subject, now++))
const countedAdmit = nsPerOp(() => counted.admit(subject, now++))
const plainFind = nsPerOp(() => accounts.findKeyByHash("hash"))
const instrumentedFind = nsPerOp(() => instrumented.findKeyByHash("hash"))

report("metrics", [
  { id: "request-record", label: "Metrics.request (route lookup, status count, histogram bucket)", value: nsPerOp((i) => metrics.request("GET /v1/pets", 200, (i & 7) * 1e-4)), unit: "ns" },
  { id: "handle-added", label: "App.handle metered − unmetered (answered at once)", value: meteredHandle - plainHandle, unit: "ns" },
  { id: "admit-added", label: "RateLimiter.admit counted − uncounted (memory, at the request's time)", value: countedAdmit - plainAdmit, unit: "ns" },
  { id: "store-call-added", label: "store call instrumented − plain (AccountStore.findKeyByHash in memory, tracing off)", value: instrumentedFind - plainFind, unit: "ns" },
  { id: "per-request", label: "per request (handle + admit + one store call added)", value: meteredHandle - plainHandle + countedAdmit - plainAdmit + instrumentedFind - plainFind, unit: "ns" }
])
