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
 * and error counts (non-2xx/3xx statuses, socket errors, timeouts).
 */
export const run = async ({ body, connections, cpu, headers, loader, method, seconds, url }) => {
  const pin = (argv) => (cpu === undefined ? argv : ["taskset", "-c", String(cpu), ...argv])
  if (loader === "wrk") {
    const argv = pin(["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", WRK_SCRIPT, url])
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, BENCH_METHOD: method, BENCH_BODY: body ?? "", BENCH_AUTH: headers.authorization ?? "" },
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
      non2xx: e.status
    }
  }
  const argv = pin([
    process.execPath,
    require.resolve("autocannon/autocannon.js"),
    "-c", String(connections), "-p", "1", "-d", String(seconds), "-j", "-m", method,
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]),
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
    non2xx: r.non2xx
  }
}
