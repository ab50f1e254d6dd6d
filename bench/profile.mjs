#!/usr/bin/env node
// CPU profile of our server under the GET (or POST) load: starts `bin.js serve` with --cpu-prof,
// seeds it, loads it for a while, stops it, and prints where the time went (self time by function,
// by package, and inclusive time of the frames that matter). The .cpuprofile stays for DevTools.
//
//   node bench/profile.mjs [--scenario get|post|post-keyed] [--store memory|sqlite] [--duration 10] [--server path/to/bin.js] [--out DIR] [--top 30]
//   node bench/profile.mjs --analyse file.cpuprofile
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { PAGE_LIMIT, POST_BODY } from "./fixture.mjs"
import * as Loader from "./lib/loader.mjs"
import * as Proc from "./lib/proc.mjs"
import * as Targets from "./lib/targets.mjs"
import { option } from "./lib/options.mjs"

const ROOT = fileURLToPath(new URL("..", import.meta.url))

/** Where the time went in a .cpuprofile: self time by function and by package, inclusive by frame. */
export const analyse = (file, { top = 30, window, requests } = {}) => {
  const profile = JSON.parse(readFileSync(file, "utf8"))
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map()
  // Only the samples inside `window` (monotonic µs, the clock V8 stamps samples with), if given.
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    if (window !== undefined && (at < window[0] || at > window[1])) continue
    const id = profile.samples[i]
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  }
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const nameOf = (n) => {
    const cf = n.callFrame
    const where = cf.url === "" ? "" : ` ${cf.url.replace(/^file:\/\//, "").replace(ROOT, "").replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "")}:${cf.lineNumber + 1}`
    return `${cf.functionName || "(anonymous)"}${where}`
  }
  const packageOf = (n) => {
    const url = n.callFrame.url
    if (url === "") return n.callFrame.functionName.startsWith("(") ? n.callFrame.functionName : "(native)"
    if (url.startsWith("node:")) return "node: internals"
    const m = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
    if (m !== null) return m[1]
    const p = /packages\/([^/]+)\//.exec(url)
    if (p !== null) return `@petstore/${p[1]}`
    return url
  }
  const bySelf = new Map()
  const byPackage = new Map()
  const inclusive = new Map()
  for (const [id, t] of self) {
    const n = byId.get(id)
    const name = nameOf(n)
    bySelf.set(name, (bySelf.get(name) ?? 0) + t)
    const pkg = packageOf(n)
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + t)
    // Inclusive: every distinct frame on the stack gets the sample once.
    const seen = new Set()
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const nm = nameOf(byId.get(cur))
      if (seen.has(nm)) continue
      seen.add(nm)
      inclusive.set(nm, (inclusive.get(nm) ?? 0) + t)
    }
  }
  // With `requests` (the requests of the window), each share also as µs of sampled time per request.
  const pct = (t) =>
    `${((t / total) * 100).toFixed(1).padStart(5)}%${requests === undefined ? "" : ` ${(t / requests).toFixed(2).padStart(7)} µs/req`}`
  const sorted = (m) => [...m.entries()].sort((a, b) => b[1] - a[1])
  const lines = []
  lines.push(`profile ${file}: ${(total / 1e6).toFixed(1)} s sampled${window === undefined ? "" : " (the measured load only)"}`)
  lines.push("\nself time by package:")
  for (const [k, t] of sorted(byPackage).slice(0, 15)) lines.push(`  ${pct(t)}  ${k}`)
  lines.push(`\nself time by function (top ${top}):`)
  for (const [k, t] of sorted(bySelf).slice(0, top)) lines.push(`  ${pct(t)}  ${k}`)
  lines.push(`\ninclusive time (top ${top}, our packages and effect entry points):`)
  for (const [k, t] of sorted(inclusive).filter(([k]) => /packages\/|runFork|runLoop|evaluateEffect|writev|parserOnHeadersComplete|end /.test(k)).slice(0, top)) {
    lines.push(`  ${pct(t)}  ${k}`)
  }
  return lines.join("\n")
}

const main = async () => {
  const top = Number(option("top", 30))
  const analyseFile = option("analyse", undefined)
  if (analyseFile !== undefined) return console.log(analyse(analyseFile, { top }))
  const scenario = option("scenario", "get")
  if (!["get", "post", "post-keyed"].includes(scenario)) throw new Error(`--scenario takes get, post or post-keyed, not ${scenario}`)
  const seconds = Number(option("duration", 10))
  const out = option("out", mkdtempSync(join(tmpdir(), "petstore-profile-")))
  const server = resolve(option("server", join(ROOT, "packages/server/dist/bin.js")))
  const store = option("store", "memory")
  const cwd = mkdtempSync(join(tmpdir(), "petstore-profile-run-"))
  const target = {
    id: store,
    label: "ours",
    role: "ours",
    argv: [server, "serve"],
    // PETSTORE_STORE=memory takes no database (the server refuses one).
    env: { PETSTORE_STORE: store, ...(store === "memory" ? {} : { PETSTORE_DATABASE: join(cwd, "petstore.db") }) },
    cwd,
    kind: "app",
    scenarios: ["get", "post"]
  }
  let window
  let requests
  const running = await Targets.start(target, { cpu: 0, root: ROOT, nodeArgs: ["--cpu-prof", "--cpu-prof-dir", out] })
  try {
    await Targets.seed(running)
    const key = await Targets.newKey(running)
    const loader = Loader.choose("auto")
    const url = `http://127.0.0.1:${running.port}${scenario === "get" ? `/v1/pets?limit=${PAGE_LIMIT}` : "/v1/pets"}`
    const run = (s) =>
      Loader.run({
        loader,
        url,
        method: scenario === "get" ? "GET" : "POST",
        body: scenario === "get" ? undefined : POST_BODY,
        headers: { authorization: `Bearer ${key}` },
        keyed: scenario === "post-keyed",
        connections: 50,
        seconds: s,
        cpu: 1
      })
    await run(2)
    const cpu0 = Proc.cpuSeconds(running.pid)
    const t0 = Number(process.hrtime.bigint() / 1000n)
    const r = await run(seconds)
    window = [t0, Number(process.hrtime.bigint() / 1000n)]
    requests = r.requests
    const cpu = Proc.cpuSeconds(running.pid) - cpu0
    console.log(`${scenario}: ${(r.requests / r.seconds).toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ${((cpu / r.requests) * 1e6).toFixed(1)} µs CPU/request`)
  } finally {
    await Targets.stop(running, { signal: "SIGINT" })
    rmSync(cwd, { recursive: true, force: true })
  }
  const file = readdirSync(out).find((f) => f.endsWith(".cpuprofile"))
  if (file === undefined) throw new Error(`no profile written in ${out}`)
  console.log(analyse(join(out, file), { window, requests, top }))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
