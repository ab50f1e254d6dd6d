// The load generator, always a separate process pinned away from the server: wrk (Debian's `wrk`,
// C, microsecond latencies) when it is installed, else autocannon (npm; latencies in whole ms).
// Fixed connections, one request in flight per connection (no pipelining), closed loop.
import { execFileSync, spawn } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

const require = createRequire(import.meta.url)
const WRK_SCRIPT = fileURLToPath(new URL("../wrk.lua", import.meta.url))

const has = (command) => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

export const hasWrk = () => has("wrk")
export const hasTaskset = () => has("taskset")

/** The loader to use: `wrk` or `autocannon`, as asked, or wrk when it is there. */
export const choose = (asked) => {
  if (asked === "wrk" && !hasWrk()) throw new Error("wrk is not installed: run bench/setup.sh (apt-get install wrk) or use --loader autocannon")
  if (asked === "wrk" || asked === "autocannon") return asked
  return hasWrk() ? "wrk" : "autocannon"
}

export const describe = (loader) => {
  if (loader === "wrk") return execFileSync("sh", ["-c", "wrk --version 2>&1 | head -1 || true"]).toString().trim().split(" Copyright")[0]
  return `autocannon ${require("autocannon/package.json").version}`
}

const collect = (child) =>
  new Promise((resolve, reject) => {
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, out, err }))
  })

/**
 * One closed-loop run against `url`. Returns requests completed, seconds, latency percentiles (ms)
 * and error counts (non-2xx/3xx statuses, socket errors, timeouts); with `quantiles`, also a grid of
 * latency percentiles (`[[percent, ms], …]`, for `merge`).
 */
export const run = async ({ body, connections, cpu, headers, loader, method, seconds, url, quantiles = false, keyed = false }) => {
  // A keyed run: a new Idempotency-Key per request, unique to this load generator.
  const keyPrefix = keyed ? `bench-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}-` : ""
  const pin = (argv) => (cpu === undefined ? argv : ["taskset", "-c", String(cpu), ...argv])
  if (loader === "wrk") {
    const argv = pin(["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", WRK_SCRIPT, url])
    const child = spawn(argv[0], argv.slice(1), {
      env: {
        ...process.env,
        BENCH_METHOD: method,
        BENCH_BODY: body ?? "",
        BENCH_AUTH: headers.authorization ?? "",
        BENCH_QUANTILES: quantiles ? "1" : "0",
        BENCH_IDEMPOTENCY_PREFIX: keyPrefix
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const { code, err, out } = await collect(child)
    const line = out.split("\n").find((l) => l.startsWith("BENCH_JSON "))
    if (code !== 0 || line === undefined) throw new Error(`wrk failed (exit ${code}): ${err || out}`)
    const r = JSON.parse(line.slice("BENCH_JSON ".length))
    const e = r.errors
    return {
      requests: r.requests,
      seconds: r.durationMicros / 1e6,
      p50: r.latencyMicros.p50 / 1000,
      p99: r.latencyMicros.p99 / 1000,
      errors: e.connect + e.read + e.write + e.timeout,
      non2xx: e.status,
      ...(quantiles ? { quantiles: (r.quantilesMicros ?? []).map(([p, us]) => [p, us / 1000]) } : {})
    }
  }
  const argv = pin([
    process.execPath,
    require.resolve("autocannon/autocannon.js"),
    "-c", String(connections), "-p", "1", "-d", String(seconds), "-j", "-m", method,
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]),
    // autocannon replaces `[<id>]` with a new random id in every request (-I).
    ...(keyed ? ["-I", "-H", `idempotency-key=${keyPrefix}[<id>]`] : []),
    ...(body === undefined ? [] : ["-H", "content-type=application/json", "-b", body]),
    url
  ])
  const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] })
  const { code, err, out } = await collect(child)
  if (code !== 0) throw new Error(`autocannon failed (exit ${code}): ${err}`)
  const r = JSON.parse(out)
  return {
    requests: r.requests.total,
    seconds: r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    // autocannon's JSON has these percentiles only: a coarse grid between p97.5 and p99.9.
    ...(quantiles
      ? {
        quantiles: [
          [0, r.latency.min], [0.001, r.latency.p0_001], [0.01, r.latency.p0_01], [0.1, r.latency.p0_1], [1, r.latency.p1],
          [2.5, r.latency.p2_5], [10, r.latency.p10], [25, r.latency.p25], [50, r.latency.p50], [75, r.latency.p75],
          [90, r.latency.p90], [97.5, r.latency.p97_5], [99, r.latency.p99], [99.9, r.latency.p99_9], [99.99, r.latency.p99_99],
          [99.999, r.latency.p99_999], [100, r.latency.max]
        ].filter(([, ms]) => Number.isFinite(ms))
      }
      : {})
  }
}

/**
 * The fraction (0..1) of a run's requests that took at most `x` ms, from its percentile grid (linear
 * between grid points).
 */
const cdf = (grid, x) => {
  if (grid.length === 0 || x < grid[0][1]) return 0
  let k = 0
  while (k + 1 < grid.length && grid[k + 1][1] <= x) k++
  if (k + 1 === grid.length) return 1
  const [p0, x0] = grid[k]
  const [p1, x1] = grid[k + 1]
  return (p0 + ((p1 - p0) * (x - x0)) / (x1 - x0)) / 100
}

/**
 * Percentile `p` (0..100, in ms) of the latencies of several runs side by side, as one distribution:
 * each run's share is its count of requests; between the grid points of every run the distribution
 * is taken as linear. (It lies between the runs' own percentiles.)
 */
export const mergedPercentile = (runs, p) => {
  const weighted = runs.filter((r) => r.requests > 0 && r.quantiles?.length > 0)
  const total = weighted.reduce((a, r) => a + r.requests, 0)
  if (total === 0) return Number.NaN
  const at = (x) => weighted.reduce((a, r) => a + r.requests * cdf(r.quantiles, x), 0) / total
  const xs = [...new Set(weighted.flatMap((r) => r.quantiles.map(([, x]) => x)))].sort((a, b) => a - b)
  const target = p / 100
  let previous = xs[0]
  let fPrevious = at(previous)
  if (fPrevious >= target) return previous
  for (const x of xs.slice(1)) {
    const f = at(x)
    if (f >= target) return previous + ((x - previous) * (target - fPrevious)) / (f - fPrevious)
    previous = x
    fPrevious = f
  }
  return xs[xs.length - 1]
}

/**
 * One closed-loop run against several URLs at once (the instances of a target): one load generator
 * process per URL, side by side, each with its share of `connections` (they differ by one at most),
 * all pinned to `cpu`. req/s is the sum of theirs; p50 and p99 are percentiles of all their
 * latencies together (`mergedPercentile`); `parts` holds each process's own result.
 */
export const runSpread = async ({ urls, connections, ...options }) => {
  if (urls.length === 1) return run({ ...options, url: urls[0], connections })
  if (connections < urls.length) throw new Error(`${connections} connections cannot be spread over ${urls.length} instances`)
  const parts = await Promise.all(urls.map((url, i) =>
    run({ ...options, url, quantiles: true, connections: Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0) })
  ))
  const requests = parts.reduce((a, r) => a + r.requests, 0)
  const rps = parts.reduce((a, r) => a + r.requests / r.seconds, 0)
  return {
    requests,
    seconds: requests / rps, // so that requests ÷ seconds = the sum of the processes' req/s
    p50: mergedPercentile(parts, 50),
    p99: mergedPercentile(parts, 99),
    errors: parts.reduce((a, r) => a + r.errors, 0),
    non2xx: parts.reduce((a, r) => a + r.non2xx, 0),
    parts: parts.map(({ quantiles: _, ...r }) => r)
  }
}
