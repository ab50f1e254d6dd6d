// The CPU of one request inside the application, without HTTP: `App.handle` over the in-memory
// store for a page read, an in-memory POST, a 404 and an invalid query, in ns per request (median of
// 5 samples). `--root DIR` measures another built checkout of the project (its own effect too), so
// two versions can be compared on one machine, alternating:
//
//   for i in 1 2 3; do node bench/compare/handle.mjs --root ../before; node bench/compare/handle.mjs; done
//
// On a busy machine, count instructions instead of time: `--case NAME --count N` runs only that
// case, N requests after the warm-up, so that under `valgrind --tool=callgrind --cache-sim=no
// --smc-check=all-non-file node --single-threaded` the difference between N and 0 divided by N is
// the instructions per request, whatever else the machine is doing. `--usage` counts usage per
// account as the server does by default (without it: PETSTORE_USAGE=off).
//
// `--redis` decides limits with the Redis limiter (`packages/redis`, Redis at BENCH_REDIS_URL,
// default redis://127.0.0.1:6379, under a key prefix of this run's own, deleted at the end) instead
// of the in-memory one (with a deadline of 10 min per call, so that a slow run, under valgrind,
// never falls back to memory; `decidedByRedis`, the key's daily count in Redis as its last answer
// tells it, shows that every request was decided there). Each request then waits for Redis, so requests run as the server runs them
// (its request runner, `internal/hosts/runner.js`), `--concurrency C` of them in flight (default 50,
// the bench's connections), and the instructions per request include the Redis client's.
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const at = process.argv.indexOf("--root")
const root = resolve(at === -1 ? join(dirname(fileURLToPath(import.meta.url)), "../..") : process.argv[at + 1])
const fromCore = createRequire(join(root, "packages/core/package.json"))
const load = (path) => import(pathToFileURL(path).href)
const core = await load(join(root, "packages/core/dist/index.js"))
const { Accounts, MessageProcessor, Petstore, Sync } = core
const { App } = await load(join(root, "packages/http-node/dist/App.js"))
const { Effect, Exit, Layer, ManagedRuntime, Option, Redacted } = await load(fromCore.resolve("effect"))

// `--usage`: usage counted per account (in memory, flushed every second), as the server does by default.
const usage = process.argv.includes("--usage")
  ? core.Usage.Usage.layer({ flushMillis: 1_000 }).pipe(
    Layer.provide(Layer.merge(core.UsageStore.UsageStore.layerMemory, core.SecureRandom.SecureRandom.Live))
  )
  : Layer.empty
const withRedis = process.argv.includes("--redis")
const concurrencyAt = process.argv.indexOf("--concurrency")
const concurrency = concurrencyAt === -1 ? 50 : Number(process.argv[concurrencyAt + 1])
const Redis = withRedis ? await import("../lib/redis.mjs") : undefined
const redisPrefix = Redis?.prefixFor("handle")
const rateLimiterLayer = withRedis
  ? (await load(join(root, "packages/redis/dist/index.js"))).RateLimiterRedis.layer({ url: Redis.url(), prefix: redisPrefix, commandTimeoutMillis: 600_000 })
  : undefined
const runtime = ManagedRuntime.make(
  App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [] }).pipe(
    Layer.provideMerge(Layer.merge(Petstore.layerMemory({ rateLimiterLayer }), usage)),
    Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
  )
)
const { handle, key } = await runtime.runPromise(Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  const { key } = yield* accounts.create({ plan: "enterprise", limits: { perMinute: 1_000_000, perDay: 1_000_000_000 } })
  return { handle: (yield* App).handle, key: Redacted.value(key.key) }
}))

const request = (method, url, body, idempotencyKey) => {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idempotencyKey }
  const bytes = new TextEncoder().encode(body === undefined ? "" : JSON.stringify(body))
  return { method, url, header: (name) => headers[name], remoteAddress: "127.0.0.1", readBody: () => Exit.succeed({ _tag: "Body", bytes }) }
}
// Run as the node:http server runs a request. On Effect 4 (`Effect.runForkWith`, no `Sync` in the
// core): a fiber of its own with the application's services (`internal/hosts/runner.js`), its exit
// observed. A checkout on Effect 3 ran it with `Sync.run` (answered at once, or in a fiber); one
// from before `Sync.run` handed back an Exit when it answered at once.
const fork = typeof Effect.runForkWith === "function" ? Effect.runForkWith(await runtime.context()) : undefined
const run = fork !== undefined
  ? (r) => {
    let answer
    fork(handle(r)).addObserver((exit) => (answer = exit))
    return answer
  }
  : typeof Sync.run === "function"
  ? (r) => {
    let answer
    Sync.run(handle(r), (rest) => runtime.runFork(rest), (exit) => (answer = exit))
    return answer
  }
  : (r) => {
    const answer = handle(r)
    return Exit.isExit(answer) ? answer : runtime.runSync(answer)
  }
// With Redis: the server's own runner, `concurrency` requests in flight until `n` are answered.
const runner = withRedis ? runtime.runSync((await load(join(root, "packages/http-node/dist/internal/hosts/runner.js"))).make) : undefined
const statuses = {}
let lastRateLimit
const drive = (make, n) =>
  new Promise((resolve) => {
    let started = 0
    let finished = 0
    let looping = false
    const answered = (_, response) => {
      statuses[response.status] = (statuses[response.status] ?? 0) + 1
      lastRateLimit = response.headers.RateLimit ?? response.headers.ratelimit ?? lastRateLimit
      if (++finished === n) resolve()
      else next()
    }
    const next = () => {
      if (looping) return
      looping = true
      while (started < n && started - finished < concurrency) {
        started++
        runner(make(), undefined, answered)
      }
      looping = false
    }
    if (n === 0) resolve()
    else next()
  })
// The key's requests counted in Redis (its daily quota, from the `RateLimit` field of the last answer).
const decided = () => 1_000_000_000 - Number(/"day";r=(\d+)/.exec(String(lastRateLimit))?.[1])
const PET = { name: "Rex", categoryId: 1, status: "available" }
if (withRedis) await drive(() => request("POST", "/v1/pets", PET), 40)
else for (let i = 0; i < 40; i++) run(request("POST", "/v1/pets", PET))

let keyed = 0
const cases = {
  "GET /v1/pets?limit=20": () => request("GET", "/v1/pets?limit=20"),
  "POST /v1/pets": () => request("POST", "/v1/pets", PET),
  // A new Idempotency-Key each (as the bench's post-keyed scenario): the cost of a keyed create.
  "POST /v1/pets keyed": () => request("POST", "/v1/pets", PET, `handle-${++keyed}`),
  "GET /v1/nope (404)": () => request("GET", "/v1/nope"),
  "GET /v1/pets?limit=abc (400)": () => request("GET", "/v1/pets?limit=abc")
}
const result = {}
// `--case NAME --count N`: only that case, N requests after the warm-up (for instruction counts).
const only = process.argv.includes("--case") ? process.argv[process.argv.indexOf("--case") + 1] : undefined
const count = process.argv.includes("--count") ? Number(process.argv[process.argv.indexOf("--count") + 1]) : undefined
if (only !== undefined) {
  const make = cases[only]
  if (withRedis) {
    await drive(make, 20_000)
    await drive(make, count)
  } else {
    for (let i = 0; i < 20_000; i++) run(make())
    for (let i = 0; i < count; i++) run(make())
  }
  console.log(JSON.stringify({ root, case: only, count, ...(withRedis ? { redis: true, concurrency, statuses, decidedByRedis: decided() } : {}) }))
  await runtime.dispose()
  if (withRedis) await Redis.clean(redisPrefix)
  process.exit(0)
}
// With Redis the time of a request is mostly its wait: the process's CPU per request is measured.
if (withRedis) {
  for (const [name, make] of Object.entries(cases)) {
    const n = 20_000
    await drive(make, 5_000)
    const samples = []
    for (let s = 0; s < 5; s++) {
      const start = process.cpuUsage()
      await drive(make, n / 5)
      const used = process.cpuUsage(start)
      samples.push((1_000 * (used.user + used.system)) / (n / 5))
    }
    samples.sort((a, b) => a - b)
    result[name] = Math.round(samples[2])
  }
  console.log(JSON.stringify({ root, redis: true, concurrency, cpuNsPerRequest: result, statuses, decidedByRedis: decided() }))
  await runtime.dispose()
  await Redis.clean(redisPrefix)
  process.exit(0)
}
for (const [name, make] of Object.entries(cases)) {
  const n = name.startsWith("POST") ? 100_000 : 300_000
  for (let i = 0; i < 20_000; i++) run(make())
  const samples = []
  for (let s = 0; s < 5; s++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < n / 5; i++) run(make())
    samples.push(Number(process.hrtime.bigint() - start) / (n / 5))
  }
  samples.sort((a, b) => a - b)
  result[name] = Math.round(samples[2])
}
console.log(JSON.stringify({ root, nsPerRequest: result }))
await runtime.dispose()
