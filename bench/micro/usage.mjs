// What counting usage per account adds to one request. The hot path alone: UsageCounter.record
// (a Map lookup and a typed-array increment) over 1,000 keys. Then whole requests through the application of `serve` (in
// memory, answered at once): GET /v1/pets?limit=20 and POST /v1/pets with usage counted against
// PETSTORE_USAGE=off, on and off alternating sample by sample.
import { UsageCounter } from "@petstore/core"
import { Effect } from "effect"
import { draft, PAGE_LIMIT } from "../fixture.mjs"
import { application as shared } from "./application.mjs"
import { nsPerOp, QUICK, report } from "./harness.mjs"

// The counter alone, 1,000 keys of 100 accounts, in one hour.
const counter = UsageCounter.make()
const KEYS = Array.from({ length: 1000 }, (_, i) => [`acc_${i % 100}`, `key_${i}`])
const VERDICTS = ["allowed", "allowed", "allowed", "rate_limited"]
const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1
const counterRecord = nsPerOp((i) => {
  const [account, key] = KEYS[i % 1000]
  counter.record(account, key, VERDICTS[i & 3], 200, hour)
})

/** The application with usage counted or not: a GET of a kept page and a POST, each answered at once. */
// Spread over 64 keys: a long run sends more than one key's 10⁶ requests a minute.
const KEY_COUNT = 64
const application = async (usage) => {
  const app = await shared({ PETSTORE_USAGE: usage ? "on" : "off", PETSTORE_USAGE_FLUSH_SECONDS: "1" }, KEY_COUNT)
  const body = new TextEncoder().encode(JSON.stringify(draft(7)))
  const getRequests = Array.from({ length: KEY_COUNT }, (_, n) => app.request("GET", `/v1/pets?limit=${PAGE_LIMIT}`, undefined, n))
  const postRequests = Array.from({ length: KEY_COUNT }, (_, n) => app.request("POST", "/v1/pets", body, n))
  let status = 0
  // Run as the server runs a request (a fiber of its own, its exit observed); one that waits (and so
  // ends after this call) is not what is measured here.
  const run = (requests, expected) => (i) => {
    const req = requests[i & (KEY_COUNT - 1)]
    status = 0
    app.fork(app.handle(req)).addObserver((exit) => (status = exit.value.status))
    if (status === 0) throw new Error(`${req.method} was not answered at once`)
    if (status !== expected) throw new Error(`${req.method} answered ${status}`)
    return status
  }
  for (const req of getRequests) await Effect.runPromise(app.handle(req))
  return { get: run(getRequests, 200), post: run(postRequests, 201), close: app.close }
}

const on = await application(true)
const off = await application(false)
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const paired = (which) => {
  const ons = []
  const offs = []
  // Which of the pair goes first alternates: measured with both the same, the first of a pair came
  // out up to 0.8 µs slower on a busy machine.
  const sample = (app) => nsPerOp(app[which], { samples: 1, warmupMs: 50 })
  for (let k = 0; k < (QUICK ? 6 : 12); k++) {
    if (k % 2 === 0) {
      ons.push(sample(on))
      offs.push(sample(off))
    } else {
      offs.push(sample(off))
      ons.push(sample(on))
    }
  }
  return { on: median(ons), off: median(offs), added: median(ons.map((x, k) => x - offs[k])) }
}
const get = paired("get")
const post = paired("post")
await Promise.all([on.close(), off.close()])

report("usage", [
  { id: "counter-record", label: "UsageCounter.record (1,000 keys, one hour): the hot path", value: counterRecord, unit: "ns" },
  { id: "get-on", label: "GET /v1/pets?limit=20 through App.handle (in memory, at once), usage counted", value: get.on, unit: "ns" },
  { id: "get-off", label: "the same, PETSTORE_USAGE=off", value: get.off, unit: "ns" },
  { id: "get-added", label: "GET: usage on − off (median of paired samples)", value: get.added, unit: "ns" },
  { id: "get-ratio", label: "GET requests per second, usage on ÷ off", value: get.off / get.on, unit: "×" },
  { id: "post-on", label: "POST /v1/pets through App.handle (in memory, at once), usage counted", value: post.on, unit: "ns" },
  { id: "post-off", label: "the same, PETSTORE_USAGE=off", value: post.off, unit: "ns" },
  { id: "post-added", label: "POST: usage on − off (median of paired samples)", value: post.added, unit: "ns" },
  { id: "post-ratio", label: "POST requests per second, usage on ÷ off", value: post.off / post.on, unit: "×" }
])
