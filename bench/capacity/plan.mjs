// The capacity plan of docs/capacity.md: the measured costs per request (`--costs`, PostgreSQL + Redis
// rows) turned into what a request mix needs at 10k, 100k and 1M requests per second. Written by
// `pnpm bench --costs` between the `plan` markers; `node bench/capacity/plan.mjs FILE.json` prints it
// from a costs run saved with `--json`.
//
// The rules (docs/capacity.md explains each):
//   instances   = target × S ÷ 10⁶ ÷ UTILIZATION, rounded up (S: server CPU µs per request of the mix; one
//                 core per instance, the event loop is one thread)
//   Redis       = target × round trips per request ÷ (REDIS_SHARD_OPS × UTILIZATION), rounded up
//   PostgreSQL  = target × P ÷ 10⁶ ÷ UTILIZATION cores (P: backend + background CPU µs per request),
//                 WAL = target × WAL bytes per request, statements = target × statements per request
//   pet ids     = creates per second against pet id allocation's measured ceiling (`--counter`, design
//                 `concurrent`, what new databases use): the smallest measured batch size whose pets per
//                 second cover them, with its latency, or the wall when none does (batches grow by
//                 themselves under load; creates then wait for their batch). The concurrent design
//                 serializes nothing, so its ceiling is the measuring machine's (2 cores) and grows
//                 with the primary's cores, which the PostgreSQL column already counts.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The mix of the plan and of `--capacity-check`: shares of list, create and message submit. */
export const MIX = { list: 0.8, create: 0.15, message: 0.05 }

/** The share of a resource's capacity a plan fills (headroom for peaks, failover and a lost node). */
export const UTILIZATION = 0.6

/**
 * Requests per second one Redis shard serves with the limiter's script, measured on the reference
 * machine with `redis-benchmark` (docs/capacity.md, "Redis"): one core of Redis.
 */
export const REDIS_SHARD_OPS = Number(process.env.BENCH_REDIS_SHARD_OPS ?? 33_000)

/**
 * Pet id allocation's ceiling as new databases take ids (concurrently: no lock shared by inserts),
 * measured on the reference machine with `--counter` (design `concurrent`, 16 clients;
 * docs/capacity.md): pets per second and latency at each batch size. `BENCH_COUNTER` replaces it
 * (`batch:petsPerSecond:latencyMs,…`; the counter row's figures, design `row`, plan a database not switched).
 */
export const COUNTER = (process.env.BENCH_COUNTER ?? "1:9337:2,16:98891:3,64:214177:5,256:315015:13")
  .split(",")
  .map((point) => {
    const [batch, petsPerSecond, latencyMs] = point.split(":").map(Number)
    return { batch, petsPerSecond, latencyMs, batchesPerSecond: petsPerSecond / batch }
  })
  .sort((a, b) => a.batch - b.batch)

/** The mix's figures per request from the costs summary (PostgreSQL + Redis rows). */
export const perRequest = (summary) => {
  const at = (op, f) => summary[`postgres-redis/${op}`]?.[f]?.median ?? Number.NaN
  const mixed = (f) => Object.entries(MIX).reduce((a, [op, w]) => a + w * at(op, f), 0)
  return {
    server: mixed("serverMicros"),
    pg: mixed("pgMicros") + mixed("pgAuxMicros"),
    wal: mixed("walBytes"),
    statements: mixed("pgXacts"),
    redisTrips: mixed("redisRoundTrips"),
    redisMicros: mixed("redisMicros"),
    bytes: mixed("bytesPerRequest")
  }
}

const n0 = (x) => Math.round(x).toLocaleString("en-US")

/** The plan's table (markdown) for the targets. */
export const table = (summary, targets = [10_000, 100_000, 1_000_000]) => {
  const r = perRequest(summary)
  const lines = [
    `Mix: ${Object.entries(MIX).map(([op, w]) => `${w * 100} % ${op}`).join(", ")}. Per request of the mix (PostgreSQL + Redis rows above, weighted): ` +
      `server ${r.server.toFixed(0)} µs, PostgreSQL ${r.pg.toFixed(0)} µs, ${r.statements.toFixed(3)} statements, ${r.wal.toFixed(0)} WAL bytes, ` +
      `${r.redisTrips.toFixed(2)} Redis round trips (${r.redisMicros.toFixed(0)} µs of Redis CPU), ${r.bytes.toFixed(0)} bytes on the wire. ` +
      `Each resource planned at ${UTILIZATION * 100} % of its capacity; a Redis shard at ${n0(REDIS_SHARD_OPS)} limiter calls/s; ` +
      `pet ids taken concurrently, as measured on 2 cores: ${COUNTER.map((c) => `${n0(c.batchesPerSecond)} batches/s at ${c.batch} per batch`).join(", ")}.`,
    "",
    "| target req/s | instances (1 core each) | Redis shards | PostgreSQL primary: cores | WAL | statements/s | pets created/s: the smallest measured batch that carries them (pet ids taken concurrently, 2 cores) | network |",
    "|--:|--:|--:|--:|--:|--:|--:|--:|"
  ]
  for (const t of targets) {
    const instances = Math.ceil((t * r.server) / 1e6 / UTILIZATION)
    const shards = Math.ceil((t * r.redisTrips) / (REDIS_SHARD_OPS * UTILIZATION))
    const pgCores = (t * r.pg) / 1e6 / UTILIZATION
    const pets = t * MIX.create
    const carried = COUNTER.find((c) => c.petsPerSecond >= pets)
    const largest = COUNTER[COUNTER.length - 1]
    const counter = carried === undefined
      ? `over the measured ceiling (${n0(largest.petsPerSecond)}/s at ${largest.batch} per batch): more primary cores`
      : `${carried.batch} per batch (${n0(carried.petsPerSecond)}/s, ${n0(carried.latencyMs)} ms)`
    lines.push(
      `| ${n0(t)} | ${n0(instances)} | ${n0(shards)} | ${pgCores.toFixed(pgCores < 10 ? 1 : 0)} | ${((t * r.wal) / 2 ** 20).toFixed(1)} MiB/s | ${n0(t * r.statements)} | ` +
        `${n0(pets)}: ${counter} | ${((t * r.bytes * 8) / 1e9).toFixed(2)} Gbit/s |`
    )
  }
  return lines.join("\n")
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { summary } = JSON.parse(readFileSync(process.argv[2], "utf8"))
  console.log(table(summary))
}
