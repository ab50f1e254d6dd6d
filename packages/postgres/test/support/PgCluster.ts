/**
 * A PostgreSQL primary and a streaming standby of a test's own, from the PostgreSQL 15 binaries
 * (`/usr/lib/postgresql/15/bin`, or `PETSTORE_TEST_PG_BIN`): each in a temporary folder, on a free
 * loopback port, with trust authentication. Run as the `postgres` user when the test runs as root
 * (PostgreSQL refuses root). For failover tests: `promote` the standby, `fence` the old primary
 * (read-only, as a demoted primary answers), `stop` both.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort } from "../../../server/test/support/ServerProcess.js"

const BIN = process.env.PETSTORE_TEST_PG_BIN ?? "/usr/lib/postgresql/15/bin"

/** Whether the binaries are there; under `CI=true` their absence fails the file. */
export const availableOrFail = (): boolean => {
  if (Fs.existsSync(Path.join(BIN, "pg_ctl")) && Fs.existsSync(Path.join(BIN, "initdb"))) return true
  if (process.env.CI === "true") throw new Error(`CI=true and the PostgreSQL binaries are missing from ${BIN} (apt-get install postgresql)`)
  return false
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0

/** Runs a PostgreSQL binary (as the postgres user under root); throws with its output on failure. */
const run = (tool: string, args: ReadonlyArray<string>) => {
  const [command, all] = asRoot ? ["runuser", ["-u", "postgres", "--", Path.join(BIN, tool), ...args]] : [Path.join(BIN, tool), args]
  const result = spawnSync(command, all, { encoding: "utf8", timeout: 60_000 })
  if (result.status !== 0) throw new Error(`${tool} ${args.join(" ")} failed (${result.status}):\n${result.stdout}\n${result.stderr}`)
  return result.stdout
}

export interface Node {
  readonly port: number
  readonly url: string
  readonly dir: string
}

export interface PgCluster {
  readonly primary: Node
  readonly standby: Node
  /** The standby becomes a primary (waits until it takes writes). */
  readonly promote: () => void
  readonly stop: () => void
}

const startNode = (dir: string, port: number) =>
  run("pg_ctl", ["-D", dir, "-l", Path.join(dir, "log"), "-w", "-t", "60", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, "start"])

export const start = async (): Promise<PgCluster> => {
  const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-pg-cluster-"))
  if (asRoot) execFileSync("chown", ["postgres:postgres", root])
  const [primaryPort, standbyPort] = [await freePort(), await freePort()]
  const primary: Node = { port: primaryPort, url: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`, dir: Path.join(root, "primary") }
  const standby: Node = { port: standbyPort, url: `postgres://postgres@127.0.0.1:${standbyPort}/postgres`, dir: Path.join(root, "standby") }
  run("initdb", ["-D", primary.dir, "-U", "postgres", "--auth=trust", "--no-sync"])
  Fs.appendFileSync(primary.dir + "/pg_hba.conf", "host replication all 127.0.0.1/32 trust\n")
  startNode(primary.dir, primary.port)
  run("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", standby.dir, "-R", "-X", "stream", "--no-sync"])
  startNode(standby.dir, standby.port)
  const stop = () => {
    for (const node of [standby, primary]) {
      try {
        run("pg_ctl", ["-D", node.dir, "-m", "immediate", "-w", "stop"])
      } catch {
        // already stopped
      }
    }
    Fs.rmSync(root, { recursive: true, force: true })
  }
  return { primary, standby, promote: () => run("pg_ctl", ["-D", standby.dir, "-w", "promote"]), stop }
}
