/**
 * A Redis server of a test's own (`redis-server` on a free port, nothing kept on disk), which the
 * test can stop and start again: for outages, and for counting exactly the commands a client sends.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as Net from "node:net"

export const available = (): boolean => spawnSync("redis-server", ["--version"]).status === 0

/**
 * Whether a test file can start Redis servers of its own. Without `redis-server` the tests are
 * skipped, except under `CI=true`, where that is a failure (the file throws when it is collected).
 */
export const availableOrFail = (): boolean => {
  if (available()) return true
  if (process.env.CI === "true") throw new Error("CI=true and redis-server is not installed (apt-get install redis-server)")
  return false
}

/** A loopback port nothing listens on right now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as Net.AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = Net.connect(port, "127.0.0.1", () => {
      socket.end()
      resolve(true)
    })
    socket.on("error", () => resolve(false))
  })

export interface RedisProcess {
  readonly url: string
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
}

export const start = async (): Promise<RedisProcess> => {
  const port = await freePort()
  let child: ChildProcess | undefined
  const run = async () => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore"
    })
    // Polls for the port (the event itself), up to 5 s; a server that never listens fails the test.
    for (let i = 0; !(await listening(port)); i++) {
      if (i >= 100) throw new Error(`redis-server did not listen on 127.0.0.1:${port} within 5 s`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  const stop = async () => {
    const c = child
    child = undefined
    if (c === undefined || c.exitCode !== null) return
    await new Promise<void>((resolve) => {
      c.once("exit", () => resolve())
      c.kill("SIGKILL")
    })
  }
  await run()
  return { url: `redis://127.0.0.1:${port}`, stop, start: run }
}
