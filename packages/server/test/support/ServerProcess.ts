/**
 * The real `petstore` binary (packages/server/dist/bin.js, built by `pnpm build`) as a child
 * process: servers on a given store (a SQLite file or a PostgreSQL URL), and one-shot CLI commands.
 * Waits are bounded polls.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { onTestFailed } from "vitest"

export const BIN = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../dist/bin.js")

export interface Server {
  readonly process: ChildProcess
  readonly url: string
  readonly output: () => string
  /** Standard output alone (`output` has both streams, as they came). */
  readonly stdout: () => string
  readonly stderr: () => string
}

/**
 * A server's output is kept, not printed: it is printed (and so shown, as vitest shows what a failing
 * test printed) only when the test that started it fails. Outside a test (a `beforeAll`), nothing.
 */
const showOnFailure = (output: () => string): void => {
  try {
    onTestFailed(() => console.error(`output of the server this test started:\n${output()}`))
  } catch {
    // Not inside a test.
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` every `everyMs` until it returns a value, at most `tries` times. */
export const pollUntil = async <A>(what: string, check: () => Promise<A | undefined> | A | undefined, tries: number, everyMs: number) => {
  for (let i = 0; i < tries; i++) {
    const value = await check()
    if (value !== undefined) return value
    await sleep(everyMs)
  }
  throw new Error(`gave up waiting for ${what} after ${tries} tries`)
}

/** A port nothing listens on right now (the configuration does not accept 0). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as Net.AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

/** Settings of a server or command: the store (`PETSTORE_DATABASE`) and any other variable. */
export type Settings = Readonly<Record<string, string>>

/** The settings for a SQLite file. */
export const sqliteFile = (filename: string): Settings => ({ PETSTORE_DATABASE: filename, PETSTORE_STORE: "sqlite" })

/** The environment without any PETSTORE_ setting of the machine, plus `settings`. */
const environment = (settings: Settings): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("PETSTORE_")) env[k] = v
  return { ...env, ...settings }
}

const requireBuilt = () => {
  if (!Fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`pnpm build\` before this test`)
}

/** Runs one CLI command; resolves with its exit code and output. */
export const cli = (settings: Settings, args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    requireBuilt()
    execFile(process.execPath, [BIN, ...args], { env: environment(settings), timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
  })

/** Starts a server (`bin`: another build of the binary, e.g. the bundle) on a free port; tries again (a few times) if another process took the port first. */
export const start = async (settings: Settings, bin: string = BIN): Promise<Server> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(settings, bin)
    } catch (error) {
      if (attempt >= 3 || !/already in use/.test(String(error))) throw error
    }
  }
}

const startOnce = async (settings: Settings, bin: string): Promise<Server> => {
  requireBuilt()
  const child = spawn(process.execPath, [bin, "serve"], {
    // A port the settings name (a restart on the same address, behind a balancer), or a free one.
    env: { ...environment(settings), PORT: settings.PORT ?? String(await freePort()), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => {
    output += String(chunk)
    stdout += String(chunk)
  })
  child.stderr!.on("data", (chunk) => {
    output += String(chunk)
    stderr += String(chunk)
  })
  showOnFailure(() => output)
  const url = await pollUntil("the server to listen", () => {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`)
    return /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)?.[1]
  }, 600, 100)
  return { process: child, url, output: () => output, stdout: () => stdout, stderr: () => stderr }
}

/**
 * Starts `petstore serve ARGS…` on a free port and waits until it answers (not for its start line,
 * which a log level may hide): for servers whose whole output a test reads.
 */
export const startAnswering = async (settings: Settings, args: ReadonlyArray<string> = []) => {
  requireBuilt()
  const port = await freePort()
  const child = spawn(process.execPath, [BIN, "serve", ...args], {
    env: { ...environment(settings), PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += String(chunk)))
  child.stderr!.on("data", (chunk) => (output += String(chunk)))
  showOnFailure(() => output)
  const url = `http://127.0.0.1:${port}`
  try {
    await pollUntil("the server to answer", async () => {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`)
      return (await fetch(`${url}/v1/openapi.json`).then((r) => r.status, () => undefined)) === 200 ? true : undefined
    }, 600, 100)
  } catch (error) {
    child.kill("SIGKILL")
    throw error
  }
  return { process: child, url, output: () => output }
}

export const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()))

/**
 * Kills a server under load with SIGKILL, then lets `settle` end the clients (their requests in
 * flight fail), and waits for the process to be gone; what failed otherwise is thrown.
 */
export const killUnderLoad = async (server: Pick<Server, "process">, settle: () => Promise<unknown>, failure: () => unknown) => {
  server.process.kill("SIGKILL")
  await settle()
  await exited(server.process)
  if (failure() !== undefined) throw failure()
  if (server.process.signalCode !== "SIGKILL") throw new Error(`the server ended by ${server.process.signalCode ?? server.process.exitCode}, not SIGKILL`)
}

/** Stops a server (SIGTERM) and waits for it to exit; nothing when it never started. */
export const stop = async (server: Pick<Server, "process"> | undefined) => {
  if (server === undefined) return
  if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill("SIGTERM")
  await exited(server.process)
}
