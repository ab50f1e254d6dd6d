// `pnpm lint:openapi [document.json]`: lints the OpenAPI document with Redocly (`redocly.yaml`,
// its `recommended` rules) and Spectral (`.spectral.yaml`, `spectral:oas`). Without an argument it
// lints the document the server serves: it starts `node packages/server/dist/bin.js serve` with the
// default configuration plus a staging URL (in memory, on a free port), fetches /v1/openapi.json and
// stops the server. Prints every problem; exits 1 when either linter reports an error or a warning
// (a warning that stays is switched off in its ruleset, with its reason in docs/decisions.md).
import { execFile, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const bin = (name) => join(root, "node_modules", ".bin", name)
/** A staging URL as an operator would set it (`.test` is reserved, and not flagged as an example). */
const STAGING_URL = "https://staging.petstore.test/v1"

const freePort = () =>
  new Promise((done, fail) => {
    const probe = createServer()
    probe.once("error", fail)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address()
      probe.close(() => done(port))
    })
  })

/** The served document's text: a server with the default configuration (no PETSTORE_* variable of ours) plus a staging URL. */
const servedDocument = async () => {
  const port = await freePort()
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PETSTORE_")))
  const server = spawn(process.execPath, [join(root, "packages/server/dist/bin.js"), "serve"], {
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", PETSTORE_STORE: "memory", PETSTORE_STAGING_URL: STAGING_URL },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let log = ""
  server.stdout.on("data", (chunk) => (log += chunk))
  server.stderr.on("data", (chunk) => (log += chunk))
  const exited = new Promise((done) => server.once("exit", done))
  try {
    for (const started = Date.now(); Date.now() - started < 60_000;) {
      if (server.exitCode !== null) break
      try {
        const response = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)
        if (response.ok) return await response.text()
      } catch {
        // not listening yet
      }
      await new Promise((done) => setTimeout(done, 200))
    }
    throw new Error(`the server did not serve /v1/openapi.json:\n${log}`)
  } finally {
    server.kill("SIGTERM")
    await exited
  }
}

const run = (command, args) =>
  new Promise((done) => {
    const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" }
    execFile(command, args, { cwd: root, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
  })

const parse = (linter, { code, stderr, stdout }) => {
  try {
    return JSON.parse(stdout)
  } catch {
    throw new Error(`${linter} failed (exit ${code}) without a report:\n${stderr}${stdout}`)
  }
}

/** Every problem of Redocly's `recommended` rules, as `{ linter, severity, rule, where, message }`. */
const redocly = async (file) => {
  const report = parse("redocly", await run(bin("redocly"), ["lint", "--config", join(root, "redocly.yaml"), "--format=json", file]))
  return report.problems.map((p) => ({
    linter: "redocly",
    severity: p.severity === "warn" ? "warning" : p.severity,
    rule: p.ruleId,
    where: p.location?.[0]?.pointer ?? "",
    message: p.message
  }))
}

const SPECTRAL_SEVERITY = ["error", "warning", "info", "hint"]

/** Every problem of Spectral's `spectral:oas` rules. */
const spectral = async (file) => {
  const result = await run(bin("spectral"), ["lint", "--ruleset", join(root, ".spectral.yaml"), "--format", "json", "--quiet", file])
  const problems = result.stdout.trim() === "" ? [] : parse("spectral", result)
  return problems.map((p) => ({
    linter: "spectral",
    severity: SPECTRAL_SEVERITY[p.severity] ?? String(p.severity),
    rule: p.code,
    where: "#/" + p.path.map((key) => String(key).replace(/~/g, "~0").replace(/\//g, "~1")).join("/"),
    message: p.message
  }))
}

const given = process.argv.slice(2).find((a) => a !== "--")
const dir = mkdtempSync(join(tmpdir(), "petstore-openapi-"))
try {
  const file = given === undefined ? join(dir, "openapi.json") : resolve(given)
  if (given === undefined) writeFileSync(file, await servedDocument())
  const problems = (await Promise.all([redocly(file), spectral(file)])).flat()
  for (const p of problems) console.log(`${p.linter} ${p.severity} ${p.rule} at ${p.where}: ${p.message}`)
  const failing = problems.filter((p) => p.severity === "error" || p.severity === "warning")
  console.log(
    `lint:openapi: ${given ?? "the served document"}: ${failing.length} error(s) and warning(s), ` +
      `${problems.length - failing.length} other note(s) (Redocly recommended, Spectral spectral:oas)`
  )
  process.exitCode = failing.length === 0 ? 0 : 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
