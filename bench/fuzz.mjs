// `pnpm fuzz [-- petstore-fuzz options]`: the raw-socket fuzzer against a freshly started server on a
// new SQLite file. Starts `node packages/server/dist/bin.js serve` (as the bench starts its durable
// target), runs `petstore-fuzz` against it (default 2,000 requests; `-- --requests 100000` is the
// long run), then checks that the server is still running, prints the errors it logged, and stops
// it. Exits with the fuzzer's status, or 1 if the server crashed, logged an error or did not stop.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { ADMIN_TOKEN, start, stop } from "./lib/targets.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const dir = mkdtempSync(join(tmpdir(), "petstore-fuzz-"))
const database = join(dir, "petstore.db")
const server = await start({
  id: "fuzz",
  argv: [join(root, "packages/server/dist/bin.js"), "serve"],
  env: { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: database },
  cwd: dir,
  kind: "app"
}, { root })
const errors = []
const keepErrors = (chunk) => {
  for (const line of String(chunk).split("\n")) if (/\b(ERROR|FATAL)\b|request failed|^\s+at /.test(line)) errors.push(line)
}
server.child.stdout.on("data", keepErrors)
server.child.stderr.on("data", keepErrors)
const baseUrl = `http://127.0.0.1:${server.port}`
process.stderr.write(`fuzz: server on ${baseUrl}, SQLite at ${database}\n`)

// `pnpm fuzz -- --requests N` passes the "--" along.
const args = process.argv.slice(2).filter((a, i) => !(i === 0 && a === "--"))
const fuzzer = spawn(
  process.execPath,
  [join(root, "packages/testkit/bin/petstore-fuzz.js"), "--base-url", baseUrl, "--admin-token", ADMIN_TOKEN, ...args],
  { stdio: "inherit" }
)
const fuzzStatus = await new Promise((r) => fuzzer.on("exit", (code) => r(code ?? 1)))

const exited = server.exited()
process.stdout.write(
  `server: ${exited !== null ? `EXITED during the run (code ${exited.code}, signal ${exited.signal})` : "still running after the run"}; ` +
    `${errors.length} error line(s) in its log\n`
)
for (const line of errors.slice(0, 30)) process.stdout.write(`  ${line}\n`)
let stopped = true
if (exited !== null) {
  process.stdout.write(`server log (end):\n${server.log().slice(-2_000)}\n`)
} else {
  // A graceful stop takes at most the shutdown bound (10 s); past 12 s the server is killed.
  const startedStop = Date.now()
  const exit = await stop(server)
  stopped = exit.signal !== "SIGKILL"
  process.stdout.write(
    stopped
      ? `server: stopped on SIGTERM in ${((Date.now() - startedStop) / 1000).toFixed(1)} s\n`
      : "server: did NOT stop on SIGTERM within 12 s (killed)\n"
  )
}
rmSync(dir, { recursive: true, force: true })
process.exit(fuzzStatus !== 0 ? fuzzStatus : exited !== null || errors.length > 0 || !stopped ? 1 : 0)
