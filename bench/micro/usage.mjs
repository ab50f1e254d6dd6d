// What counting usage per account adds to one request. The hot path alone: UsageCounter.record
// (a Map lookup and a typed-array increment) over 1,000 keys, and Usage.record as the application
// calls it (with the Clock's reading). Then whole requests through the application of `serve` (in
// memory, answered at once): GET /v1/pets?limit=20 and POST /v1/pets with usage counted against
// PETSTORE_USAGE=off, on and off alternating sample by sample.
import { Accounts, Pets, Sync, UsageCounter } from "@petstore/core"
import { App as AppModule } from "@petstore/http-node"
import { Config, Main, ServerMetrics } from "@petstore/server"
import { ConfigProvider, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { BENCH_LIMITS, draft, PAGE_LIMIT } from "../fixture.mjs"
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

/** The application of `serve` on the in-memory store, usage on or off, a key and 100 pets. */
const application = async (usage) => {
  const env = new Map([["PETSTORE_STORE", "memory"], ["PETSTORE_USAGE", usage ? "on" : "off"], ["PETSTORE_USAGE_FLUSH_SECONDS", "1"]])
  const config = await Effect.runPromise(Effect.withConfigProvider(Config.ServerConfig, ConfigProvider.fromMap(env)))
  const appLayer = ServerMetrics.appLayer(config, (metrics) =>
    AppModule.App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [], metrics })
  ).pipe(Layer.provideMerge(ServerMetrics.observeServices(config, Main.services(config))))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(appLayer, scope))
  const { handle, key } = await Effect.runPromise(Effect.gen(function*() {
    const accounts = yield* Accounts.Accounts
    const pets = yield* Pets.Pets
    const { key } = yield* accounts.create({ plan: "enterprise", limits: BENCH_LIMITS })
    for (let i = 1; i <= 100; i++) yield* pets.create(draft(i))
    return { handle: (yield* AppModule.App).handle, key: Redacted.value(key.key) }
  }).pipe(Effect.provide(context)))
  const authorization = `Bearer ${key}`
  const body = new TextEncoder().encode(JSON.stringify(draft(7)))
  const request = (method, url, bytes) => ({
    method,
    url,
    header: (name) => (name === "authorization" ? authorization : name === "content-type" ? "application/json" : undefined),
    remoteAddress: "127.0.0.1",
    readBody: () => Sync.succeed({ _tag: "Body", bytes })
  })
  const getRequest = request("GET", `/v1/pets?limit=${PAGE_LIMIT}`, new Uint8Array())
  const postRequest = request("POST", "/v1/pets", body)
  let status = 0
  const run = (req, expected) => () => {
    Sync.run(handle(req), () => {
      throw new Error(`${req.method} was not answered at once`)
    }, (exit) => (status = exit.value.status))
    if (status !== expected) throw new Error(`${req.method} answered ${status}`)
    return status
  }
  await Effect.runPromise(handle(getRequest))
  return { get: run(getRequest, 200), post: run(postRequest, 201), close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const on = await application(true)
const off = await application(false)
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const paired = (which) => {
  const ons = []
  const offs = []
  for (let k = 0; k < (QUICK ? 5 : 11); k++) {
    ons.push(nsPerOp(on[which], { samples: 1, warmupMs: 50 }))
    offs.push(nsPerOp(off[which], { samples: 1, warmupMs: 50 }))
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
