/**
 * A Redis Cluster of a test's own: three `redis-server` masters in cluster mode on free loopback
 * ports (nothing kept on disk but their node files, in a temporary folder), joined with
 * `redis-cli --cluster create`. `moveSlot` reshards one slot from its node to another the way
 * `redis-cli --cluster reshard` does (IMPORTING/MIGRATING, MIGRATE of its keys, SETSLOT NODE), with a
 * pause in the middle, while clients see ASK (and TRYAGAIN) redirections.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort } from "./RedisProcess.js"

const cli = (port: number, ...args: ReadonlyArray<string>) =>
  execFileSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", timeout: 10_000 }).trim()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface RedisCluster {
  readonly ports: ReadonlyArray<number>
  /** The URL of the first node (a client learns the others from it). */
  readonly url: string
  /** The port of the node serving `slot`. */
  readonly ownerOf: (slot: number) => number
  readonly keySlot: (key: string) => number
  /** Moves `slot` to the node on `to`; `midway` runs while the slot is migrating, its keys moved. */
  readonly moveSlot: (slot: number, to: number, midway: () => Promise<void>) => Promise<void>
  /** The keys matching `pattern` on every node. */
  readonly keys: (pattern: string) => ReadonlyArray<string>
  /** The error replies the node on `port` has sent, by kind (`INFO errorstats`: ASK, MOVED, TRYAGAIN…). */
  readonly errorReplies: (port: number) => Readonly<Record<string, number>>
  readonly stop: () => void
}

export const start = async (): Promise<RedisCluster> => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-redis-cluster-"))
  const ports = [await freePort(), await freePort(), await freePort()]
  const children: Array<ChildProcess> = ports.map((port) =>
    spawn("redis-server", [
      "--port", String(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
      "--cluster-config-file", Path.join(dir, `nodes-${port}.conf`), "--dir", dir, "--save", "", "--appendonly", "no"
    ], { stdio: "ignore" })
  )
  for (const port of ports) {
    for (let i = 0; ; i++) {
      try {
        if (cli(port, "ping") === "PONG") break
      } catch {
        // not listening yet
      }
      if (i > 100) throw new Error(`redis-server on ${port} did not start`)
      await sleep(50)
    }
  }
  execFileSync("redis-cli", ["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "0", "--cluster-yes"], {
    stdio: "ignore",
    timeout: 30_000
  })
  for (let i = 0; !ports.every((p) => cli(p, "cluster", "info").includes("cluster_state:ok")); i++) {
    if (i > 200) throw new Error("the cluster did not become ok")
    await sleep(50)
  }
  const idOf = (port: number) => cli(port, "cluster", "myid")
  const ownerOf = (slot: number) => {
    // The node whose own line of CLUSTER NODES lists a range holding the slot.
    for (const port of ports) {
      const nodes = cli(port, "cluster", "nodes").split("\n")
      const mine = nodes.find((line) => line.includes("myself"))!
      const ranges = mine.split(" ").slice(8)
      if (ranges.some((r) => {
        if (r.startsWith("[")) return false
        const [a, b] = r.split("-").map(Number)
        return slot >= a! && slot <= (b ?? a!)
      })) return port
    }
    throw new Error(`no node serves slot ${slot}`)
  }
  return {
    ports,
    url: `redis://127.0.0.1:${ports[0]}`,
    ownerOf,
    keySlot: (key) => Number(cli(ports[0]!, "cluster", "keyslot", key)),
    moveSlot: async (slot, to, midway) => {
      const from = ownerOf(slot)
      cli(to, "cluster", "setslot", String(slot), "importing", idOf(from))
      cli(from, "cluster", "setslot", String(slot), "migrating", idOf(to))
      const keys = cli(from, "cluster", "getkeysinslot", String(slot), "1000").split("\n").filter((k) => k !== "")
      if (keys.length > 0) cli(from, "migrate", "127.0.0.1", String(to), "", "0", "5000", "keys", ...keys)
      await midway()
      for (const port of ports) cli(port, "cluster", "setslot", String(slot), "node", idOf(to))
    },
    keys: (pattern) => ports.flatMap((p) => cli(p, "--scan", "--pattern", pattern).split("\n").filter((k) => k !== "")),
    errorReplies: (port) =>
      Object.fromEntries(
        [...cli(port, "info", "errorstats").matchAll(/^errorstat_(\w+):count=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])])
      ),
    stop: () => {
      for (const child of children) child.kill("SIGKILL")
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
