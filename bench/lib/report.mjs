// docs/performance.md from one run's measurements: machine, command, the targets with their ratios,
// the load tables, the micro-benchmarks, the method, and every round's raw numbers.

const f = (x, digits = 0) => (Number.isFinite(x) ? x.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "–")
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–")
const mb = (bytes) => (Number.isFinite(bytes) ? f(bytes / 2 ** 20, 0) : "–")

const SCENARIO_TITLE = { get: "GET /v1/pets?limit=20", post: "POST /v1/pets" }

/** The keyed durable POST's goal: at least this share of the un-keyed POST's req/s, on SQLite and PostgreSQL. */
export const KEYED_GOAL = 0.9

/**
 * The keyed durable POST against the un-keyed one, per target (SQLite, PostgreSQL): req/s, p99 and
 * the ratio of req/s (median of the per-round ratios; the goal is at least KEYED_GOAL).
 */
const keyedTable = (load) => {
  const keyed = load.summary["post-keyed"] ?? {}
  const ids = Object.keys(keyed)
  if (ids.length === 0) return ""
  const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "–")
  const lines = [
    "## Load: POST /v1/pets with an `Idempotency-Key`\n",
    "Every request carries a new key (the load generator counts them), so each is a first request: the key is claimed and its record written with the pet.\n",
    `| target | un-keyed req/s | keyed req/s | keyed ÷ un-keyed | un-keyed p99 ms | keyed p99 ms | goal ≥ ${KEYED_GOAL} |`,
    "|---|--:|--:|--:|--:|--:|---|"
  ]
  for (const id of ids) {
    const plain = load.summary.post?.[id]
    const k = keyed[id]
    lines.push(`| ${id} | ${f(plain?.rps)} | ${f(k.rps)} | ${f(k.keyedRatio, 2)} | ${f(plain?.p99, 2)} | ${f(k.p99, 2)} | ${Number.isFinite(k.keyedRatio) ? (k.keyedRatio >= KEYED_GOAL ? "yes" : "**no**") : "n/a"} |`)
  }
  return lines.join("\n") + "\n"
}

/**
 * A comparison of two in-memory servers measured in paired slices (bench/run.mjs, palindromic blocks):
 * `{ rps: { median, q1, q3, min, max }, blocks, … }`, or undefined when the run has none.
 */
const pairedOf = (load, scenario, numerator, denominator) => load?.paired?.[scenario]?.[`${numerator}/${denominator}`]

/** "0.99× (IQR 0.98–1.00, 15 blocks)": a paired ratio of req/s with its spread. */
const pairedText = (p) => `${ratio(p.rps.median)} (IQR ${p.rps.q1.toFixed(3)}–${p.rps.q3.toFixed(3)}, ${p.blocks} blocks)`

/**
 * The Targets row of a feature switch (`memory` on ÷ `off`): the median of the paired blocks' ratios
 * when the run measured them, else the median of the per-round ratios; POST and the other estimate in the note.
 */
const switchRow = (load, goal, off, bound, describe) => {
  const s = load?.summary ?? {}
  const get = pairedOf(load, "get", "memory", off)
  const post = pairedOf(load, "post", "memory", off)
  const rounds = { get: s.get?.memory?.vs[off]?.rps, post: s.post?.memory?.vs[off]?.rps }
  const value = get?.rps.median ?? rounds.get
  const postValue = post?.rps.median ?? rounds.post
  const notes = []
  if (Number.isFinite(postValue)) notes.push(`POST: ${post === undefined ? ratio(postValue) : pairedText(post)}${atLeastText(postValue, bound)}`)
  if (get !== undefined) notes.push(`GET ${pairedText(get)}: median of paired blocks (see *Paired comparisons*); per-round ratios of the 5 s runs: GET ${ratio(rounds.get)}, POST ${ratio(rounds.post)}`)
  notes.push(`against \`${off}\`, ${describe}`)
  return { goal, measured: ratio(value), met: Number.isFinite(value) ? value >= bound : undefined, note: notes.join("; ") }
}
const atLeastText = (x, bound) => (x >= bound ? "" : ` (**below ${bound}**)`)

/** The paired comparisons: per scenario and pair, the median of the blocks' ratios, their spread, and CPU per request. */
const pairedTable = (load) => {
  const rows = Object.entries(load.paired ?? {}).flatMap(([scenario, pairs]) => Object.values(pairs).map((p) => ({ scenario, ...p })))
  if (rows.length === 0) return ""
  const x = (v) => (Number.isFinite(v) ? v.toFixed(3) : "–")
  const lines = [
    "## Paired comparisons\n",
    `Servers that differ by one switch, measured in short slices back to back (${load.pairedSettings.seconds} s each, ` +
      `${f(load.pairedSettings.blocksPerRound)} palindromic blocks per round and scenario, after every round and after the peak RSS is read; see *Method*). ` +
      "Each block gives one ratio of req/s (and of server CPU per request); the estimate is their median, the quartiles and extremes their spread.\n",
    "| scenario | ratio | blocks | req/s ratio (median) | quartiles | min – max | CPU µs/req ratio (median) | CPU quartiles | failed |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|"
  ]
  for (const p of rows) {
    lines.push(
      `| ${SCENARIO_TITLE[p.scenario] ?? p.scenario} | ${p.numerator} ÷ ${p.denominator} | ${p.blocks} | ${x(p.rps.median)} | ${x(p.rps.q1)} – ${x(p.rps.q3)} | ` +
        `${x(p.rps.min)} – ${x(p.rps.max)} | ${x(p.cpuPerRequestMicros.median)} | ${x(p.cpuPerRequestMicros.q1)} – ${x(p.cpuPerRequestMicros.q3)} | ${p.failed} |`
    )
  }
  return lines.join("\n") + "\n"
}

/** The issue's targets, each with its measured value and whether it is met. */
export const goals = (load, micro, webhooks) => {
  const s = load?.summary ?? {}
  const microValue = (group, id) => micro?.find((g) => g.group === group)?.results?.find((r) => r.id === id)?.value
  // `met` is undefined (n/a) when the ratio was not measured (NaN: a target left out of the run).
  const row = (goal, measured, met, note = "") => ({ goal, measured, met, note })
  const atLeast = (x, bound) => (Number.isFinite(x) ? x >= bound : undefined)
  const atMost = (x, bound) => (Number.isFinite(x) ? x <= bound : undefined)
  const rows = []
  const getMem = s.get?.memory
  rows.push(row("GET, in-memory: ≥ 1.0× Fastify's req/s", ratio(getMem?.vs.fastify.rps), atLeast(getMem?.vs.fastify.rps, 1)))
  rows.push(row("GET, in-memory: p99 ≤ Fastify's p99", `p99 ${ratio(getMem?.vs.fastify.p99)} Fastify's`, atMost(getMem?.vs.fastify.p99, 1)))
  // Against the same Fastify build logging each request with pino (as ours writes its access line).
  const postMemPino = s.post?.memory?.vs["fastify-pino"]?.rps
  rows.push(row("GET, in-memory: ≥ 1.5× Fastify-with-pino's req/s", ratio(getMem?.vs["fastify-pino"]?.rps), atLeast(getMem?.vs["fastify-pino"]?.rps, 1.5)))
  rows.push(row("POST, in-memory: ≥ 1.3× Fastify-with-pino's req/s", ratio(postMemPino), atLeast(postMemPino, 1.3)))
  rows.push(row("GET, in-memory: ≥ 0.8× raw node:http req/s", ratio(getMem?.vs.raw.rps), atLeast(getMem?.vs.raw.rps, 0.8)))
  const getNolog = s.get?.nolog
  rows.push(row(
    "GET, in-memory, access log off: ≥ 0.85× raw node:http req/s",
    !Number.isFinite(getNolog?.vs.raw.rps) ? "not measured" : ratio(getNolog.vs.raw.rps),
    atLeast(getNolog?.vs.raw.rps, 0.85),
    getNolog === undefined
      ? "`nolog` not in this run"
      : !Number.isFinite(getNolog.vs.raw.rps)
      ? "`raw` not in this run"
      : `\`nolog\`: \`memory\` with \`PETSTORE_ACCESS_LOG=false\`, ${f(getNolog.rps)} vs ${f(s.get.raw?.rps)} req/s, ` +
        `server CPU ${f(getNolog.cpuPerRequestMicros, 1)} vs ${f(s.get.raw?.cpuPerRequestMicros, 1)} µs/req (${ratio(getNolog.vs.raw.cpuPerRequestMicros)})` +
        (Number.isFinite(getNolog.vs.memory.rps) ? `; with the access log on (\`memory\`): ${ratio(1 / getNolog.vs.memory.rps)} its req/s` : "")
  ))
  const postMem = s.post?.memory
  rows.push(switchRow(load, "GET, in-memory, metrics on: ≥ 0.95× metrics off req/s", "nometrics", 0.95, "the same server with `PETSTORE_METRICS=false`"))
  rows.push(switchRow(load, "GET, in-memory, usage counted: ≥ 0.97× usage off req/s", "nousage", 0.97, "the same server with `PETSTORE_USAGE=off`"))
  // Memory, tail latency and start-up against the Fastify peer (peak RSS over the whole run).
  const peakRss = (id) => s.get?.[id]?.peakRss ?? s.post?.[id]?.peakRss
  const rssRatio = (id) => peakRss(id) / peakRss("fastify")
  for (const [id, what, bound] of [["memory", "in-memory", 1], ["durable", "durable SQLite", 1.2]]) {
    rows.push(row(
      `peak RSS, ${what}: ≤ ${bound.toFixed(1)}× Fastify's`,
      ratio(rssRatio(id)),
      atMost(rssRatio(id), bound),
      `${mb(peakRss(id))} MB vs ${mb(peakRss("fastify"))} MB`
    ))
  }
  // Issue 31's bounds: in-memory POST p99 at most Fastify's; durable SQLite POST p99 at most 1.5× Fastify's in-memory POST p99.
  for (const [id, what, bound] of [["memory", "in-memory", 1], ["durable", "durable SQLite", 1.5]]) {
    const p99 = s.post?.[id]?.vs.fastify.p99
    rows.push(row(
      `POST, ${what}: p99 ≤ ${bound === 1 ? "" : `${bound.toFixed(1)}× `}Fastify's p99`,
      `p99 ${ratio(p99)} Fastify's`,
      atMost(p99, bound),
      Number.isFinite(p99) ? `${f(s.post[id].p99, 2)} ms vs ${f(s.post.fastify.p99, 2)} ms (medians of the rounds; the ratio is the median of the per-round ratios)` : ""
    ))
  }
  const up = load?.startup ?? {}
  const upNote = (field, unit, scale = 1) =>
    ["memory", "durable", "fastify", "raw"].filter((id) => Number.isFinite(up[id]?.[field])).map((id) => `${id} ${f(up[id][field] / scale)} ${unit}`).join(", ")
  rows.push(row(
    "start-up (spawn to the first 200 on GET /v1/pets), in-memory: ≤ 1.0× Fastify's",
    ratio(up.memory?.ms / up.fastify?.ms),
    atMost(up.memory?.ms / up.fastify?.ms, 1),
    upNote("ms", "ms")
  ))
  rows.push(row(
    "idle RSS after start, in-memory: ≤ 1.0× Fastify's",
    ratio(up.memory?.idleRss / up.fastify?.idleRss),
    atMost(up.memory?.idleRss / up.fastify?.idleRss, 1),
    upNote("idleRss", "MB", 2 ** 20)
  ))
  const durableMissing = load?.unavailable?.find((u) => u.id === "durable")
  const getDur = s.get?.durable
  rows.push(row(
    "GET, durable: ≥ 0.8× in-memory req/s",
    getDur === undefined ? "not measured" : ratio(getDur.vs.memory.rps),
    getDur === undefined ? undefined : atLeast(getDur.vs.memory.rps, 0.8),
    getDur === undefined && durableMissing ? durableMissing.reason : Number.isFinite(s.post?.durable?.vs.memory.rps) ? `POST: ${ratio(s.post.durable.vs.memory.rps)} in-memory` : ""
  ))
  const postDur = s.post?.durable
  const commitMissing = load?.unavailable?.find((u) => u.id === "sqlite1")
  rows.push(row(
    "POST, durable: ≥ 5× one-commit-per-request req/s",
    postDur === undefined || !Number.isFinite(postDur.vs.commit1.rps) ? "not measured" : ratio(postDur.vs.commit1.rps),
    postDur === undefined || !Number.isFinite(postDur.vs.commit1.rps) ? undefined : postDur.vs.commit1.rps >= 5,
    postDur === undefined
      ? durableMissing?.reason ?? ""
      : `against our server with group commit off (maxBatch 1)${Number.isFinite(postDur.vs.sqlite1.rps) ? `; ${ratio(postDur.vs.sqlite1.rps)} a bare better-sqlite3 server committing each POST` : commitMissing ? `; ${commitMissing.reason}` : ""}`
  ))
  const missing = (id) => load?.unavailable?.find((u) => u.id === id)?.reason
  const postPg = s.post?.postgres
  const pgPeer = postPg?.vs["fastify-pg"]
  rows.push(row(
    "POST, durable on PostgreSQL: ≥ 1.5× Fastify+pg req/s",
    !Number.isFinite(pgPeer?.rps) ? "not measured" : ratio(pgPeer.rps),
    atLeast(pgPeer?.rps, 1.5),
    postPg === undefined
      ? missing("postgres") ?? ""
      : !Number.isFinite(pgPeer.rps)
      ? missing("fastify-pg") ?? "Fastify+pg not in this run"
      : `against \`peers/fastify-pg.mjs\` (pg Pool of 10, one autocommit INSERT … RETURNING per POST); p99 ${ratio(pgPeer.p99)} its p99` +
        (Number.isFinite(postPg.vs.durable.rps) ? `; ${ratio(postPg.vs.durable.rps)} our durable SQLite POST` : "")
  ))
  for (const [id, what] of [["durable", "SQLite"], ["postgres", "PostgreSQL"]]) {
    const keyed = load?.summary?.["post-keyed"]?.[id]
    rows.push(row(
      `keyed durable POST (a new \`Idempotency-Key\` each), ${what}: ≥ ${KEYED_GOAL}× the un-keyed POST's req/s`,
      Number.isFinite(keyed?.keyedRatio) ? ratio(keyed.keyedRatio) : "not measured",
      atLeast(keyed?.keyedRatio, KEYED_GOAL),
      keyed === undefined ? missing(id) ?? `\`${id}\` not in this run` : `the ratio is the median of the per-round ratios; req/s, medians of the rounds: ${f(keyed.rps)} keyed vs ${f(s.post?.[id]?.rps)}`
    ))
  }
  const getPg = s.get?.postgres
  rows.push(row(
    "GET on PostgreSQL: ≥ 0.9× our durable SQLite GET req/s",
    !Number.isFinite(getPg?.vs.durable.rps) ? "not measured" : ratio(getPg.vs.durable.rps),
    atLeast(getPg?.vs.durable.rps, 0.9),
    getPg === undefined
      ? missing("postgres") ?? ""
      : [
        !Number.isFinite(getPg.vs.durable.rps) ? missing("durable") ?? "durable SQLite not in this run" : `p99 ${ratio(getPg.vs.durable.p99)} SQLite's`,
        Number.isFinite(getPg.vs["fastify-pg"].rps) ? `${ratio(getPg.vs["fastify-pg"].rps)} Fastify+pg` : "",
        Number.isFinite(getPg.vs.memory.rps) ? `${ratio(getPg.vs.memory.rps)} in-memory` : ""
      ].filter(Boolean).join("; ")
  ))
  // Scale-out: two instances of ours on one PostgreSQL and Redis against two of the Fastify peer.
  const getShared = s.get?.shared
  const postShared = s.post?.shared
  const sharedPeer = getShared?.vs["fastify-shared"]
  const sharedNote = (field, what) => {
    if (getShared === undefined) return missing("shared") ?? ""
    if (!Number.isFinite(sharedPeer[field])) return missing("fastify-shared") ?? "the scale-out peer is not in this run"
    const post = postShared?.vs["fastify-shared"][field]
    const digits = field === "rps" ? 0 : 2
    return `against \`peers/fastify-shared.mjs\` (2 instances, @fastify/rate-limit on Redis, pg); ` +
      `${what} ${f(getShared[field], digits)} vs ${f(s.get["fastify-shared"]?.[field], digits)}` +
      (Number.isFinite(post) ? `; POST: ${ratio(post)}` : "") +
      (field === "rps" && Number.isFinite(getShared.vs.postgres.rps) ? `; ${ratio(getShared.vs.postgres.rps)} one instance of ours on PostgreSQL` : "")
  }
  rows.push(row(
    "GET, 2 instances on PostgreSQL + Redis: ≥ 2.0× the Fastify peer's req/s (2 instances, pg + Redis)",
    !Number.isFinite(sharedPeer?.rps) ? "not measured" : ratio(sharedPeer.rps),
    atLeast(sharedPeer?.rps, 2),
    sharedNote("rps", "req/s")
  ))
  const postSharedPeer = postShared?.vs["fastify-shared"]
  rows.push(row(
    "durable POST, 2 instances on PostgreSQL + Redis: ≥ 1.5× the Fastify peer's req/s (2 instances)",
    !Number.isFinite(postSharedPeer?.rps) ? "not measured" : ratio(postSharedPeer.rps),
    atLeast(postSharedPeer?.rps, 1.5),
    postShared === undefined
      ? missing("shared") ?? ""
      : !Number.isFinite(postSharedPeer.rps)
      ? missing("fastify-shared") ?? "the scale-out peer is not in this run"
      : `${f(postShared.rps)} vs ${f(s.post["fastify-shared"]?.rps)} req/s, p99 ${ratio(postSharedPeer.p99)} the peer's`
  ))
  rows.push(row(
    "GET, 2 instances on PostgreSQL + Redis: p99 ≤ the Fastify peer's p99",
    !Number.isFinite(sharedPeer?.p99) ? "not measured" : `p99 ${ratio(sharedPeer.p99)} the peer's`,
    atMost(sharedPeer?.p99, 1),
    sharedNote("p99", "p99 ms")
  ))
  const calls = redisCalls(s, "shared", load?.connections)
  const peerCalls = redisCalls(s, "fastify-shared", load?.connections)
  rows.push(row(
    "Redis round trips per limited request, ours (2 instances): exactly 1",
    calls === undefined ? "not measured" : calls.measured,
    calls?.exact,
    calls === undefined
      ? missing("shared") ?? ""
      : `${calls.detail}` + (peerCalls === undefined ? "" : `. For information, the Fastify peer: ${peerCalls.measured} (${peerCalls.commands})`)
  ))
  rows.push(...oneInstanceRedisGoals(s, missing))
  const admit = microValue("limiter", "admit-request")
  const inFiber = microValue("limiter", "admit-in-fiber")
  rows.push(row(
    "limiter decision ≤ 1 µs (RateLimiter.admit at the request's time, as a request calls it; 100 000 accounts)",
    admit === undefined ? "not measured" : `${f(admit)} ns`,
    admit === undefined ? undefined : admit <= 1000,
    inFiber === undefined ? "" : `the Effect form \`admit\`, which reads the Clock itself, inside a running fiber: ${f(inFiber)} ns`
  ))
  const metricsCost = microValue("metrics", "get-added")
  rows.push(row(
    "metrics: CPU added to a GET ≤ a few hundred ns (whole App.handle, in memory, metrics on − off)",
    metricsCost === undefined ? "not measured" : `${f(metricsCost)} ns`,
    metricsCost === undefined ? undefined : metricsCost <= 500,
    metricsCost === undefined ? "" : `of ${f(microValue("metrics", "get-off"))} ns without; parts: App.handle ${f(microValue("metrics", "handle-added"))} ns, admit ${f(microValue("metrics", "admit-added"))} ns, one store call ${f(microValue("metrics", "store-call-added"))} ns (a GET makes two: the key and its account); most of it is reading the clock (performance.now())`
  ))
  const mem = microValue("limiter-memory", "mb-1m-accounts")
  rows.push(row(
    "limiter state of 1M active accounts ≤ 128 MB",
    mem === undefined ? "not measured" : `${f(mem)} MB`,
    mem === undefined ? undefined : mem <= 128,
    mem === undefined ? "" : `${f(microValue("limiter-memory", "bytes-per-account"))} B per account`
  ))
  rows.push(...webhookGoals(webhooks))
  return rows
}

/**
 * One instance of ours on PostgreSQL with the Redis limiter (`postgres-redis`): its server CPU per
 * GET against `postgres` (the same server and store, the in-memory limiter), and its GET and durable
 * POST against one process of `peers/fastify-shared.mjs` (`fastify-shared1`), the one-instance peer that
 * also keeps its limit in Redis (`peers/fastify-pg.mjs` keeps it, and its accounts, in memory).
 */
const oneInstanceRedisGoals = (s, missing) => {
  const atLeast = (x, bound) => (Number.isFinite(x) ? x >= bound : undefined)
  const atMost = (x, bound) => (Number.isFinite(x) ? x <= bound : undefined)
  const get = s.get?.["postgres-redis"]
  const post = s.post?.["postgres-redis"]
  const cpu = get?.vs.postgres.cpuPerRequestMicros
  const peer = post?.vs["fastify-shared1"]
  const getPeer = get?.vs["fastify-shared1"]
  return [
    {
      goal: "GET, one instance on PostgreSQL + Redis: ≥ 2.0× the one-instance peer",
      measured: Number.isFinite(getPeer?.rps) ? ratio(getPeer.rps) : "not measured",
      met: atLeast(getPeer?.rps, 2),
      note: get === undefined
        ? missing("postgres-redis") ?? "`postgres-redis` not in this run"
        : !Number.isFinite(getPeer.rps)
        ? missing("fastify-shared1") ?? "`fastify-shared1` not in this run"
        : `against \`fastify-shared1\`; ${f(get.rps)} vs ${f(s.get["fastify-shared1"].rps)} req/s, p99 ${ratio(getPeer.p99)} its p99`
    },
    {
      goal: "GET, Redis limiter: CPU µs/req ≤ 1.5× the in-memory limiter's",
      measured: Number.isFinite(cpu) ? ratio(cpu) : "not measured",
      met: atMost(cpu, 1.5),
      note: get === undefined
        ? missing("postgres-redis") ?? "`postgres-redis` not in this run"
        : !Number.isFinite(cpu)
        ? missing("postgres") ?? "`postgres` not in this run"
        : `one instance on PostgreSQL, \`PETSTORE_REDIS_URL\` (\`postgres-redis\`) against the same without it (\`postgres\`): ` +
          `${f(get.cpuPerRequestMicros, 1)} vs ${f(s.get.postgres.cpuPerRequestMicros, 1)} server CPU µs/req` +
          (Number.isFinite(get.redisCpuPerRequestMicros) ? ` (+ Redis ${f(get.redisCpuPerRequestMicros, 1)})` : "") +
          `; req/s ${f(get.rps)} vs ${f(s.get.postgres.rps)} (${ratio(get.vs.postgres.rps)})` +
          // Below one core busy the server waits on Redis, and each wake-up serves fewer requests.
          `; server busy ${f(get.serverCores, 2)} vs ${f(s.get.postgres.serverCores, 2)} of a core`
    },
    {
      goal: "durable POST, one instance on PostgreSQL + Redis: ≥ 1.5× the one-instance peer",
      measured: Number.isFinite(peer?.rps) ? ratio(peer.rps) : "not measured",
      met: atLeast(peer?.rps, 1.5),
      note: post === undefined
        ? missing("postgres-redis") ?? "`postgres-redis` not in this run"
        : !Number.isFinite(peer.rps)
        ? missing("fastify-shared1") ?? "`fastify-shared1` not in this run"
        : "against one process of `peers/fastify-shared.mjs` (`fastify-shared1`: @fastify/rate-limit on Redis, accounts and pets in PostgreSQL, pg Pool of 10), " +
          `the peer with the same round trips as ours; ${f(post.rps)} vs ${f(s.post["fastify-shared1"].rps)} req/s, p99 ${ratio(peer.p99)} its p99` +
          (Number.isFinite(post.vs["fastify-pg"].rps) ? `; ${ratio(post.vs["fastify-pg"].rps)} \`fastify-pg\` (limit and accounts in memory)` : "")
    }
  ]
}

/** The webhook issue's targets, per store: ≥ 2,000 deliveries/s on one instance; 202 → delivery p50 < 50 ms at light load. */
const webhookGoals = (webhooks) => {
  const rows = []
  for (const store of ["sqlite", "postgres"]) {
    const r = webhooks?.results.find((x) => x.store === store)
    const name = store === "sqlite" ? "SQLite" : "PostgreSQL"
    if (r === undefined || r.skipped !== undefined) {
      const note = r?.skipped ?? "not run (`--no-webhooks`, or `--targets` without `webhooks`)"
      rows.push({ goal: `webhook deliveries, one instance, ${name}: ≥ 2,000 deliveries/s`, measured: "not measured", met: undefined, note })
      rows.push({ goal: `webhook 202 → delivery at light load, ${name}: p50 < 50 ms`, measured: "not measured", met: undefined, note })
      continue
    }
    // The drain rate is delivery alone; without a backlog left to drain, delivery kept up with the
    // submissions, so the end-to-end rate is a lower bound on what delivery can do.
    const drained = Number.isFinite(r.drainPerSecond)
    const rate = drained ? r.drainPerSecond : r.endToEndPerSecond
    rows.push({
      goal: `webhook deliveries, one instance, ${name}: ≥ 2,000 deliveries/s`,
      measured: `${f(rate)}/s${drained ? "" : " (at least)"}`,
      met: drained || rate >= 2000 ? rate >= 2000 : undefined,
      note: drained
        ? `drain rate: ${f(r.queuedAtSubmitted)} messages still queued at the last 202; end to end ${f(r.endToEndPerSecond)}/s`
        : `end to end: delivery kept up with the submissions (${f(r.submitPerSecond)}/s), so its own rate was not reached`
    })
    rows.push({
      goal: `webhook 202 → delivery at light load, ${name}: p50 < 50 ms`,
      measured: `${f(r.p50, 1)} ms`,
      met: r.p50 < 50,
      note: `p99 ${f(r.p99, 1)} ms over ${f(r.light)} messages sent one at a time`
    })
  }
  return rows
}

const webhookTable = (webhooks) => {
  const lines = [
    "| store | deliveries/s, drain | deliveries/s, end to end | 202/s while submitting | server CPU µs/message | of which per delivery (drain) | 202 → delivery p50 | p99 | deliveries (duplicates) |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
  ]
  for (const r of webhooks.results) {
    if (r.skipped !== undefined) {
      lines.push(`| ${r.store} | – | – | – | – | – | – | – | skipped: ${r.skipped} |`)
      continue
    }
    lines.push(
      `| ${r.store} | ${f(r.drainPerSecond)} | ${f(r.endToEndPerSecond)} | ${f(r.submitPerSecond)} | ${f(r.serverCpuMicrosPerMessage)} | ${f(r.drainCpuMicrosPerMessage)} | ` +
        `${f(r.p50, 1)} ms | ${f(r.p99, 1)} ms | ${f(r.deliveries)} (${f(r.deliveries - r.messages)}) |`
    )
  }
  return lines.join("\n") + "\n"
}

/**
 * Script calls to Redis (EVALSHA, EVAL) per request of a target over its measured runs, both
 * scenarios together, from Redis's `INFO commandstats` read before and after each run:
 * - per completed request (÷ the requests the load generators completed): a little above 1 even
 *   when exact, since in a closed loop each connection has one request in flight when its load
 *   generator stops, served (so calling Redis) but not completed;
 * - per decided request (÷ the target's own count of the requests it decided with the run's key,
 *   read from its rate-limit headers after the run): exactly 1 when each request is one round trip.
 * Runs during which another client connected to Redis are left out (their calls may be counted).
 * "Exactly one" is met when, in every other run, the calls equal the decided requests and those
 * exceed the completed ones by 0 to `connections` (without a decided count: the calls do).
 */
export const redisCalls = (summary, id, connections) => {
  const scenarios = ["get", "post"].filter((sc) => summary[sc]?.[id]?.redisRuns?.length > 0)
  if (scenarios.length === 0) return undefined
  const sum = (runs, k) => runs.reduce((a, r) => a + r[k], 0)
  const clean = (sc) => summary[sc][id].redisRuns.filter((r) => !(r.otherConnections > 0))
  const runs = scenarios.flatMap(clean)
  const all = scenarios.flatMap((sc) => summary[sc][id].redisRuns)
  const left = all.length - runs.length
  const perCompleted = (rs) => (rs.length === 0 ? Number.NaN : sum(rs, "calls") / sum(rs, "requests"))
  const decidedRuns = runs.filter((r) => Number.isFinite(r.decided))
  const perDecided = decidedRuns.length === 0 ? Number.NaN : sum(decidedRuns, "calls") / sum(decidedRuns, "decided")
  const inFlight = (r) => (Number.isFinite(r.decided) ? r.decided : r.calls) - r.requests
  const exactRun = (r) =>
    (!Number.isFinite(r.decided) || r.calls === r.decided) && inFlight(r) >= 0 && inFlight(r) <= connections
  const flights = runs.map(inFlight)
  const byCommand = {}
  for (const sc of scenarios) for (const [k, v] of Object.entries(summary[sc][id].redisCallsByCommand)) byCommand[k] = (byCommand[k] ?? 0) + v
  const commands = Object.entries(byCommand).map(([k, v]) => `${k.toUpperCase()} ${f(v)}`).join(", ") || "no script calls"
  const per = (sc) => (summary[sc]?.[id]?.redisRuns?.length > 0 ? perCompleted(clean(sc)) : Number.NaN)
  const three = (x) => (Number.isFinite(x) ? x.toFixed(3) : "–")
  return {
    perRequest: perCompleted(runs),
    perDecided,
    get: three(per("get")),
    post: three(per("post")),
    exact: runs.length === 0 || !Number.isFinite(connections) ? undefined : runs.every(exactRun),
    commands,
    measured: `${three(perCompleted(runs))} per completed request (GET ${three(per("get"))}, POST ${three(per("post"))})` +
      (Number.isFinite(perDecided) ? `; ${three(perDecided)} per decided request` : ""),
    detail: runs.length === 0
      ? `every run had other Redis clients connecting meanwhile (${commands} in all)`
      : `${f(sum(runs, "calls"))} script calls (${commands} in all runs) in ${runs.length} runs, for ` +
        (decidedRuns.length === runs.length ? `${f(sum(runs, "decided"))} requests the target decided (its own count, from its rate-limit headers after each run) and ` : "") +
        `${f(sum(runs, "requests"))} completed by the load generators: per run ${f(Math.min(...flights))} to ${f(Math.max(...flights))} ` +
        `requests were in flight when the load generators stopped (at most one per connection, ${f(connections)})` +
        (left > 0 ? `; ${left} of ${all.length} runs left out: other clients connected to Redis meanwhile, so their calls may be in the count` : "")
  }
}

const loadTable = (load, scenario) => {
  const rows = load.summary[scenario]
  if (rows === undefined || Object.keys(rows).length === 0) return "_not measured_\n"
  const withCommit = scenario === "post" && (rows.commit1 !== undefined || rows.sqlite1 !== undefined)
  const withOurs = Object.keys(rows).some((id) => id !== "memory" && load.labels[id].role !== "ours" && load.labels[id].role.startsWith("BASELINE") === false) || rows.durable !== undefined || rows.postgres !== undefined
  // The PostgreSQL rows: against the Fastify+pg peer and against our SQLite store.
  const withPg = rows.postgres !== undefined || rows["fastify-pg"] !== undefined
  // The scale-out rows (2 instances on PostgreSQL + Redis): against the 2-instance Fastify peer.
  const withShared = rows.shared !== undefined || rows["fastify-shared"] !== undefined
  // Any target keeping its limits in Redis (the scale-out ones, `postgres-redis`, `fastify-shared1`).
  const withRedis = Object.keys(rows).some((id) => load.labels[id].redisPrefix !== undefined)
  const withDb = withPg || withShared || withRedis
  const head = [
    "target", "role", "req/s", "×raw", "×Fastify", ...(withOurs ? ["×in-memory"] : []), ...(withCommit ? ["×ours 1-commit", "×sqlite 1-commit"] : []),
    ...(withPg ? ["×Fastify+pg", "×ours SQLite"] : []),
    ...(withShared ? ["×Fastify 2 inst.", "×ours 1 inst. PostgreSQL"] : []),
    "p50 ms", "p99 ms", "p99 ×Fastify", ...(withShared ? ["p99 ×Fastify 2 inst."] : []),
    "CPU µs/req", ...(withDb ? ["PostgreSQL CPU µs/req"] : []), ...(withRedis ? ["Redis CPU µs/req", "Redis calls/req"] : []),
    "CPU ×raw", "CPU ×Fastify", "peak RSS MB", "RSS ×raw", "RSS ×Fastify"
  ]
  const lines = [`| ${head.join(" | ")} |`, `|${head.map((_, i) => (i < 2 ? "---" : "--:")).join("|")}|`]
  for (const [id, r] of Object.entries(rows)) {
    const t = load.labels[id]
    lines.push(`| ${[
      t.label + (r.failed > 0 ? ` (**${r.failed} failed requests**)` : ""),
      t.role,
      f(r.rps),
      ratio(r.vs.raw.rps),
      ratio(r.vs.fastify.rps),
      ...(withOurs ? [ratio(r.vs.memory.rps)] : []),
      ...(withCommit ? [ratio(r.vs.commit1.rps), ratio(r.vs.sqlite1.rps)] : []),
      ...(withPg ? [ratio(r.vs["fastify-pg"].rps), ratio(r.vs.durable.rps)] : []),
      ...(withShared ? [ratio(r.vs["fastify-shared"].rps), ratio(r.vs.postgres.rps)] : []),
      f(r.p50, 2),
      f(r.p99, 2),
      ratio(r.vs.fastify.p99),
      ...(withShared ? [ratio(r.vs["fastify-shared"].p99)] : []),
      f(r.cpuPerRequestMicros, 1),
      ...(withDb ? [f(r.dbCpuPerRequestMicros, 1)] : []),
      ...(withRedis ? [f(r.redisCpuPerRequestMicros, 1), Number.isFinite(r.redisCallsPerRequest) ? r.redisCallsPerRequest.toFixed(3) : "–"] : []),
      ratio(r.vs.raw.cpuPerRequestMicros),
      ratio(r.vs.fastify.cpuPerRequestMicros),
      mb(r.peakRss),
      ratio(r.vs.raw.peakRss),
      ratio(r.vs.fastify.peakRss)
    ].join(" | ")} |`)
  }
  return lines.join("\n") + "\n"
}

const startupTable = (load) => {
  const lines = ["| target | role | start-up ms | ×Fastify | idle RSS MB | ×Fastify |", "|---|---|--:|--:|--:|--:|"]
  const fastify = load.startup.fastify
  for (const [id, u] of Object.entries(load.startup)) {
    const t = load.labels[id]
    lines.push(`| ${t.label}${u.instances > 1 ? ` (first instance; RSS of ${u.instances})` : ""} | ${t.role} | ${f(u.ms)} | ${ratio(u.ms / fastify?.ms)} | ${mb(u.idleRss)} | ${ratio(u.idleRss / fastify?.idleRss)} |`)
  }
  return lines.join("\n") + "\n"
}

const roundsTable = (load) => {
  // Targets of several instances: each instance's load generator's req/s and p99 too.
  const spread = load.rounds.some((r) => r.perInstance !== undefined)
  const lines = [
    `| round | scenario | target | req/s | p50 ms | p99 ms | CPU µs/req | server cores | loader cores | other load (cores) | failed |${spread ? " Redis calls/req | per instance (req/s, p99 ms) |" : ""}`,
    `|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|${spread ? "--:|---|" : ""}`
  ]
  for (const r of load.rounds) {
    const more = !spread
      ? ""
      : ` ${Number.isFinite(r.redisCalls) ? `${(r.redisCalls / r.requests).toFixed(3)} (${f(r.redisCalls)} calls, ${f(r.redisDecided)} decided${r.redisOtherConnections > 0 ? `; ${f(r.redisOtherConnections)} other Redis connections meanwhile: left out` : ""})` : "–"} | ${(r.perInstance ?? []).map((x) => `${f(x.rps)}, ${f(x.p99, 2)}`).join("; ")} |`
    lines.push(`| ${r.round + 1} | ${r.scenario} | ${r.target} | ${f(r.rps)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${f(r.cpuPerRequestMicros, 1)} | ${f(r.serverCores, 2)} | ${f(r.loaderCores, 2)} | ${f(r.otherCores, 2)} | ${r.failed} |${more}`)
  }
  return lines.join("\n") + "\n"
}

const microTable = (micro) => {
  const lines = ["| group | benchmark | value | note |", "|---|---|--:|---|"]
  for (const g of micro) {
    if (g.error !== undefined) {
      lines.push(`| ${g.group} | **failed** | – | ${g.error.replaceAll("|", "\\|")} |`)
      continue
    }
    for (const r of g.results) {
      const value = r.unit === "ns" ? `${f(r.value)} ns` : r.unit === "B" ? `${f(r.value)} B` : `${f(r.value, 1)} ${r.unit}`
      const noisy = g.otherCores > 0.3 ? `other processes used ${g.otherCores.toFixed(2)} cores meanwhile` : ""
      lines.push(`| ${g.group} | ${r.label} | ${value} | ${[r.note, noisy].filter(Boolean).join("; ")} |`)
    }
  }
  return lines.join("\n") + "\n"
}

export const markdown = ({ command, finished, load, machine, micro, settings, started, webhooks }) => {
  const out = []
  const otherLoad = load === undefined ? Number.NaN : (() => {
    const xs = load.rounds.map((r) => r.otherCores).sort((a, b) => a - b)
    return xs[xs.length >> 1]
  })()
  out.push("# Performance\n")
  out.push(
    `Generated by \`${command}\` (from the repository root; it builds first) on ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, ` +
      `${Math.round((finished - started) / 1000)} s. Every number below comes from this one run: ratios compare targets measured ` +
      `in the same rounds, alternating, on the same machine. Re-run the command to reproduce; the quick variant \`pnpm bench --quick\` ` +
      `prints a shorter report and writes nothing.${settings.quick ? " **This report is from a quick run: not for judging the targets.**" : ""}\n`
  )
  out.push("## Machine\n")
  out.push(`- CPU: ${machine.nproc} × ${machine.model} (\`nproc\` = ${machine.nproc}), ${machine.memoryGiB} GiB; Linux ${machine.kernel}; Node ${machine.node}.`)
  out.push(`- Load generator: ${machine.loader}, a separate process, ${settings.connections} connections, one request in flight per connection (no pipelining), closed loop.`)
  out.push(`- Pinning: ${machine.pinning}.`)
  out.push(`- Load average (1/5/15 min) at start ${machine.loadAverageAtStart.join(" / ")}, at end ${machine.loadAverageAtEnd.join(" / ")}.` +
    (machine.otherLoadBeforeStart === undefined ? "" : ` CPU used by other processes just before the start: ${machine.otherLoadBeforeStart.toFixed(2)} cores.`) +
    (Number.isFinite(otherLoad) ? ` During the measured rounds (median): ${otherLoad.toFixed(2)} cores — on a shared machine, compare ratios, not absolute numbers.` : ""))
  out.push("")
  if (Number.isFinite(otherLoad) && otherLoad > 0.5) {
    out.push(`> **Noisy run.** Other processes kept ${otherLoad.toFixed(2)} of the ${machine.nproc} CPUs busy while the rounds ran, so the server ` +
      "and the load generator were often descheduled: absolute req/s and p99 are far below what this machine does when quiet, and even same-round " +
      "ratios move by ±30% between rounds (see *Every round*). CPU µs per request is the steadier measure. Re-run `pnpm bench` on a quiet machine " +
      "before judging a target by a few percent.\n")
  }

  out.push("## Targets\n")
  out.push("| goal | measured | met | note |\n|---|--:|---|---|")
  for (const g of goals(load, micro, webhooks)) {
    out.push(`| ${g.goal} | ${g.measured} | ${g.met === undefined ? "n/a" : g.met ? "yes" : "**no**"} | ${g.note} |`)
  }
  out.push("")

  if (load !== undefined) {
    for (const s of ["get", "post"]) {
      out.push(`## Load: ${SCENARIO_TITLE[s]}\n`)
      out.push(loadTable(load, s))
    }
    out.push(keyedTable(load))
    out.push(pairedTable(load))
    out.push("Medians of the rounds; the ratios are medians of the per-round ratios (each round measures every target back to back). " +
      "**BASELINE** rows are not the pet store: `bench/peers/raw.mjs` answers constant bytes with no auth, limit or validation (the ceiling); " +
      "`bench/peers/fastify.mjs` is an idiomatic Fastify 5 build doing the same work as ours per request (key by SHA-256, per-account limit " +
      "with X-RateLimit headers via @fastify/rate-limit, JSON-schema validation, the same 20-pet page with a signed cursor)" +
      (load.labels.sqlite1 ? "; `bench/peers/sqlite-commit-per-request.mjs` is node:http + better-sqlite3 committing every POST on its own (WAL, synchronous=FULL)" : "") +
      (load.labels["fastify-pg"] ? "; `bench/peers/fastify-pg.mjs` is the same Fastify build with the pets in PostgreSQL through `pg` (Pool of 10, named prepared statements, each POST one autocommit `INSERT … RETURNING` through `pool.query`, as node-postgres documents it; each GET a `WHERE id > $1 ORDER BY id LIMIT $2` query)" : "") +
      (load.labels.commit1 ? ". The comparison row `commit1` is our own server on the durable store with group commit off (`bench/servers/petstore-commit-per-request.mjs`, GroupCommit maxBatch 1)." : ".") +
      (load.postgres !== undefined && (load.labels.postgres || load.labels["fastify-pg"])
        ? ` The PostgreSQL rows ran on ${load.postgres} (on this machine, sharing its CPUs with the server and the load generator), each target on a fresh database of its own, dropped at the end of the run; ours with a pool of 10 connections (\`PETSTORE_DATABASE_POOL_SIZE\`).`
        : "") + "\n")
    if (load.labels.shared || load.labels["fastify-shared"]) {
      const keys = ["shared", "fastify-shared"]
        .map((id) => [id, load.summary.get?.[id]?.redisKeys ?? load.summary.post?.[id]?.redisKeys])
        .filter(([, n]) => Number.isFinite(n))
        .map(([id, n]) => `${id} ${f(n)}`)
      out.push(
        "**Scale-out rows** (`shared`, `fastify-shared`): two processes of one target on one fresh PostgreSQL database and one Redis" +
          (load.redis ? ` (${load.redis})` : "") +
          ", each target under a Redis key prefix of its own, unique to the run (`petstore_bench:<run>:<target>:`), whose keys are deleted at the end" +
          (keys.length > 0 ? ` (keys there at the end: ${keys.join(", ")})` : "") +
          ". Ours: `PETSTORE_DATABASE=postgres://…`, pool of 10 per instance, `PETSTORE_REDIS_URL`, `PETSTORE_REDIS_PREFIX`. " +
          "The peer, `bench/peers/fastify-shared.mjs`, is fastify-pg.mjs made to scale out: @fastify/rate-limit's Redis store on ioredis (one EVALSHA of its " +
          "INCR/PTTL script per request, a fixed per-minute window), accounts and keys in PostgreSQL (a key found by hash kept in memory for at most 1 s), " +
          "the cursor secret in PostgreSQL, a `pg` pool of 10 per instance. The set-up goes through the first instance only (seed pets, accounts), so that the " +
          "second answering the same page with the same key, and the limit's remaining count going down by one from one instance to the next, show that " +
          "both share the store and the limit. The load: one load generator process per instance, side by side, each with half the connections " +
          `(${f(Math.ceil(load.connections / 2))} + ${f(Math.floor(load.connections / 2))}); req/s is their sum, p50 and p99 are percentiles of their latencies together (merged from ` +
          "each one's percentile grid, weighted by its requests; per instance in *Every round*). Both instances are pinned to the server's CPU, as one-instance " +
          "targets are, so this measures what sharing costs, not more CPUs. \"Redis calls/req\" = EVALSHA + EVAL calls (Redis's `INFO commandstats`, read " +
          "before and after every measured run) ÷ the requests the load generators completed, over the runs during which no other client connected to Redis " +
          "(`INFO stats`); it is a little above 1 even when exact, as each connection's last request is in flight when its load generator stops: the Targets " +
          "table also divides by the requests the target itself decided with the run's key (read from its rate-limit headers after the run). " +
          "\"Redis CPU µs/req\" = Redis's own CPU (`INFO cpu`) over the run ÷ requests.\n"
      )
    }
    const one = {
      "postgres-redis": "`postgres-redis` is `postgres` (one instance, a fresh database of its own, pool of 10) with the rate limiter in Redis " +
        "(`PETSTORE_REDIS_URL`, `PETSTORE_REDIS_PREFIX=petstore_bench:<run>:postgres_redis:`, keys deleted at the end), GET and POST",
      "fastify-shared1": "`fastify-shared1` is one process of `bench/peers/fastify-shared.mjs` (its limit in Redis under a prefix of its own, accounts, keys and pets in " +
        "PostgreSQL on a fresh database), GET and POST: the one-instance peer that makes the same round trips as `postgres-redis` " +
        "(`fastify-pg` keeps its limit and accounts in memory)",
      nolog: "`nolog` is `memory` with `PETSTORE_ACCESS_LOG=false`, GET only, measured against `raw`"
    }
    const present = Object.keys(one).filter((id) => load.labels[id] !== undefined)
    if (present.length > 0) out.push(`**Comparison rows** (one instance each): ${present.map((id) => one[id]).join("; ")}.\n`)
    if (load.startup !== undefined) {
      out.push("## Start-up\n")
      out.push(startupTable(load))
      out.push("Start-up = from the spawn of the process (`taskset` then node) to the first 200 on `GET /v1/pets`, polled every 5 ms: as soon as the port " +
        "answers, an account is made through the admin API and its key asks for the page (for `raw`, the page needs no key; targets without a GET scenario: –). " +
        "Each target starts once per run, while the targets started before it stay idle. Idle RSS = `VmRSS` 1 s after that first 200, before any set-up or load.\n")
    }
    const rb = Object.entries(load.responses).map(([id, r]) => `${id} ${r.headerBytes} B of headers + ${r.bodyBytes} B of body`)
    out.push(`Every GET target answered the same 20-pet body (checked byte for byte before the rounds). Response sizes: ${rb.join("; ")}.\n`)
    if (load.unavailable.length > 0) {
      out.push("Not measured in this run:\n")
      for (const u of load.unavailable) out.push(`- \`${u.id}\`: ${u.reason}`)
      const ids = load.unavailable.map((u) => u.id)
      out.push([
        "",
        ...(ids.some((id) => ["durable", "sqlite1"].includes(id)) ? ["The durable rows appear by themselves once `packages/sqlite` is built and the server reads `PETSTORE_DATABASE`."] : []),
        ...(ids.some((id) => ["postgres", "fastify-pg"].includes(id)) ? ["The PostgreSQL rows appear by themselves once PostgreSQL answers at `BENCH_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`, with the right to create databases) and `packages/postgres` is built."] : []),
        ...(ids.some((id) => ["shared", "fastify-shared", "postgres-redis", "fastify-shared1"].includes(id)) ? ["The scale-out and one-instance Redis rows appear by themselves once PostgreSQL answers at `BENCH_POSTGRES_URL` and Redis at `BENCH_REDIS_URL` (default `redis://127.0.0.1:6379`), with `packages/postgres` and `packages/redis` built for ours."] : []),
        ""
      ].join("\n"))
    }
  }

  if (webhooks !== undefined) {
    const measured = webhooks.results.find((r) => r.skipped === undefined)
    out.push("## Webhook delivery\n")
    out.push(webhookTable(webhooks))
    out.push(
      "`bench/webhooks/deliveries.mjs`, one server instance (`petstore serve`, pinned like the load targets, `PETSTORE_WEBHOOK_ALLOW_PRIVATE=true`, " +
        "the default 32 workers and 16 deliveries in flight per endpoint) per store, SQLite on a fresh file, PostgreSQL on a fresh database dropped afterwards. " +
        "One account with a roomy limit; its endpoint is a node:http receiver in the runner's process on 127.0.0.1 (answers 204 at once, keep-alive). " +
        (measured === undefined ? "" : `First ${f(measured.light)} messages one at a time: 202 → delivery is from the moment the 202's headers reach the client to the delivery's arrival at the receiver. `) +
        (measured === undefined ? "" : `Then a backlog of ${f(measured.messages)} messages submitted by 50 clients at once: `) +
        "*end to end* = messages ÷ (first submission → last arrival), never more than the submissions' own rate (*202/s while submitting*); " +
        "*drain* = the messages not yet delivered when the last 202 came back ÷ the time until the last of them arrived: the rate of delivery alone, " +
        "measured when at least a tenth of the backlog was left (else –, and delivery kept up). Server CPU µs/message = the server's utime + stime " +
        "(`/proc/<pid>/stat`) over the backlog ÷ messages: accepting and delivering each one (PostgreSQL's own CPU not included); *per delivery (drain)* = " +
        "its CPU while draining (when it only delivers) ÷ the messages drained, the cost of one delivery, steadier than the rates on a busy machine. " +
        `The section took ${f(webhooks.seconds)} s; the machine was ${f(webhooks.machineBusyCores, 2)} cores busy meanwhile (all processes).\n`
    )
  }

  if (micro !== undefined) {
    out.push("## Micro-benchmarks\n")
    out.push(microTable(micro))
    out.push("Median of several timed samples after a warm-up, pinned to the server's CPU (`bench/micro/*.mjs`). " +
      "Memory: heap (plus external memory) after forced GC (`--expose-gc`), before and after each account's first decision; " +
      "the account and key id strings are allocated before the baseline since the account store owns them.\n")
  }

  out.push("## Method\n")
  out.push([
    "- Each target is a separate node process started by `bench/run.mjs`, in an empty directory of its own (ours: `node packages/server/bin/petstore.cjs serve`, the `petstore` command as shipped (the bundle, compiled from its code cache), with `PETSTORE_ADMIN_TOKEN`; `PETSTORE_STORE=memory` for the in-memory rows, `PETSTORE_STORE=sqlite` and `PETSTORE_DATABASE` on a fresh file for the durable ones, `PETSTORE_DATABASE=postgres://…` on a fresh database, `petstore_bench_<random>_<target>`, for the PostgreSQL ones; the server migrates it at start). All stay up for the whole run; only the one under load is busy.",
    "- Set-up (not measured): 100 pets are created through `POST /v1/pets`; before every measured run a fresh account (plan enterprise, 1 000 000/min, 10⁹/day) is created through the admin API, so no request is ever limited (failed requests are counted and shown).",
    "- Scale-out targets (`shared`, `fastify-shared`): two processes each, both pinned like the others; one load generator per process, side by side on the load generator's CPU, each with half the connections; their req/s added, their latencies merged; CPU per request is the sum of both processes' CPU ÷ requests, peak RSS the sum of both peaks; \"Redis CPU µs/req\" is Redis's own CPU, not counted as other load.",
    `- Warm-up: ${settings.warmup} s per target and scenario. Then ${settings.rounds} rounds; in each, every target gets ${settings.seconds} s of each scenario, back to back; the order of targets and scenarios reverses every round.`,
    "- Paired comparisons (`memory` against `nousage` and `nometrics`, and a `--variant` prototype on the in-memory store against `memory`): the per-round ratio above divides two 5 s runs made seconds apart with other targets between them, and the machine drifts more over that time than a 1 % feature costs (the same two servers came out 0.96× to 0.98× from run to run). " +
      `So after all the rounds (and after each target's peak RSS is read, so that the extra requests raise neither the rounds' p99 nor the peaks of ours against the peers'), these servers are also measured in ${settings.pairedSeconds ?? 1} s slices back to back, ${f(settings.pairedBlocks ?? 3)} blocks for each round and scenario, each block palindromic: A B C C B A for three servers (A B B A for two). ` +
      "Each server's two slices in a block are centred on the same instant, so a drift that is linear over the block (a few seconds) falls on all of them equally; the order rotates from block to block, as the server in the middle runs twice in a row. " +
      "A block's ratio is the numerator's req/s summed over its two slices ÷ the denominator's; the estimate is the median of all blocks' ratios (robust to a block hit by a burst of other load), with the quartiles as its spread. " +
      "It is an estimate of the true ratio, not a bound in either direction: a switch that really costs 3 % comes out near 0.97× and fails a ≥ 0.97× target about half the time, one that costs 4 % fails nearly always. " +
      "The Targets rows for metrics and usage use it (the per-round ratio is in their note); server CPU per request is compared the same way.",
    "- req/s = completed requests ÷ the load generator's duration. Latency percentiles come from the load generator. wrk (the default) corrects them for coordinated omission before it reports them (its `stats_correct`): every latency of at least twice the mean interval between two requests of one connection (connections ÷ req/s) is counted again at that latency less one interval, less two, and so on, as the requests an open-loop client would have sent meanwhile. So a few long waits weigh on the p99: at the start of each run the load generator opens its connections at once, and Node accepts one connection per turn of its event loop (libuv since 1.45), so the first requests of the last connections wait for every turn before theirs; in one traced 5 s run, 51 of 27,405 requests waited more than 50 ms on the wire and the correction added 1,430 samples (docs/memory-and-tail.md, *What the p99 holds*).",
    "- CPU per request = the server's utime + stime from `/proc/<pid>/stat` over the run ÷ requests (all its threads: JS, GC helpers, libuv). For the PostgreSQL targets, \"PostgreSQL CPU µs/req\" is the same for the database backends serving the target's connections (`pg_stat_activity` → `/proc/<pid>/stat`; PostgreSQL's shared WAL writer and checkpointer are not in it, and PostgreSQL is not pinned). Peak RSS = `VmHWM` from `/proc/<pid>/status` at the end of the run (the peak over set-up, warm-up and all rounds).",
    "- \"Other load\" = the machine's busy CPU time from `/proc/stat` minus the server's, its PostgreSQL backends', Redis's (scale-out targets, when Redis runs on this machine), the load generator's and the runner's: work of processes outside the bench. When it is high, absolute numbers drop; the per-round ratios are what to compare."
  ].join("\n") + "\n")

  if (load !== undefined) {
    out.push("<details><summary>Every round</summary>\n")
    out.push(roundsTable(load))
    out.push("</details>\n")
  }
  return out.join("\n")
}
