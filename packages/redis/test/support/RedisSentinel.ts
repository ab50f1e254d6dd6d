/**
 * Redis behind Sentinel, of a test's own: a master and a replica (`redis-server`) and three
 * `redis-sentinel` processes (quorum 2) on free loopback ports, nothing kept on disk but the
 * sentinels' own configuration files, in a temporary folder. The sentinels judge a master down after
 * `downAfterMillis` without an answer. `failover` asks for a promotion (`SENTINEL FAILOVER`: the old
 * master stays up and becomes a replica), `killMaster` kills the master's process (the sentinels
 * agree it is down, then promote); both wait for the sentinels to name the new master.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { freePort } from "./RedisProcess.js"

export const NAME = "petstore-test"

export const available = (): boolean => spawnSync("redis-sentinel", ["--version"]).status === 0

/** Like `RedisProcess.availableOrFail`, for `redis-sentinel` (Debian package redis-sentinel). */
export const availableOrFail = (): boolean => {
  if (available()) return true
  if (process.env.CI === "true") throw new Error("CI=true and redis-sentinel is not installed (apt-get install redis-sentinel)")
  return false
}

/** `redis-cli` without blocking the test's event loop (its HTTP clients' timings stay true). */
const cli = (port: number, ...args: ReadonlyArray<string>) =>
  new Promise<string>((resolve, reject) =>
    execFile("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", timeout: 5_000 }, (error, stdout) =>
      error === null ? resolve(stdout.trim()) : reject(error)))

const tryCli = (port: number, ...args: ReadonlyArray<string>): Promise<string | undefined> => cli(port, ...args).catch(() => undefined)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` every 20 ms until it holds, for at most `withinMs`. */
const until = async (what: string, check: () => Promise<boolean>, withinMs: number, state: () => Promise<string> = async () => "") => {
  const giveUpAt = Date.now() + withinMs
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting for ${what} after ${withinMs} ms ${await state()}`)
    await sleep(20)
  }
}

export interface RedisSentinel {
  /** `host:port` of each sentinel, as `PETSTORE_REDIS_SENTINELS` takes them. */
  readonly sentinels: ReadonlyArray<string>
  readonly name: string
  /** The port of the master the sentinels name now. */
  readonly masterPort: () => Promise<number>
  /** `SENTINEL FAILOVER`; resolves with the new master's port once the sentinels name it. */
  readonly failover: () => Promise<number>
  /** Kills the master's process; resolves with the new master's port once the sentinels name it. */
  readonly killMaster: () => Promise<number>
  /** Whether the server on `port` answers as a master that accepts writes. */
  readonly isWritableMaster: (port: number) => Promise<boolean>
  /** Stops (SIGSTOP) or resumes (SIGCONT) every sentinel. */
  readonly pauseSentinels: (paused: boolean) => void
  readonly killSentinels: () => void
  readonly stop: () => void
}

export const start = async (options: { readonly downAfterMillis?: number } = {}): Promise<RedisSentinel> => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-redis-sentinel-"))
  const children = new Map<number, ChildProcess>()
  const server = (port: number, ...args: ReadonlyArray<string>) =>
    children.set(port, spawn("redis-server", [
      "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0", "--dir", dir, ...args
    ], { stdio: "ignore" }))
  const listening = (port: number) => until(`redis on ${port} to answer`, async () => (await tryCli(port, "ping")) === "PONG", 5_000)

  const [master, replica] = [await freePort(), await freePort()]
  server(master!)
  server(replica!, "--replicaof", "127.0.0.1", String(master))
  await listening(master!)
  await listening(replica!)
  await until("the replica to be in sync", async () => /master_link_status:up/.test((await tryCli(replica!, "info", "replication")) ?? ""), 10_000, async () =>
    `(master ${master}: ${await tryCli(master!, "info", "replication")}; replica ${replica}: ${await tryCli(replica!, "info", "replication")})`)

  const sentinelPorts = [await freePort(), await freePort(), await freePort()]
  // Each sentinel is told its own id, the replica and the other sentinels, so that none has to wait
  // seconds to discover them (hello messages every 2 s, INFO every 10 s).
  const ids = sentinelPorts.map((_, i) => String(i + 1).repeat(40))
  sentinelPorts.forEach((port, i) => {
    const file = Path.join(dir, `sentinel-${port}.conf`)
    Fs.writeFileSync(file, [
      `port ${port}`,
      "bind 127.0.0.1",
      `dir ${dir}`,
      `sentinel myid ${ids[i]}`,
      `sentinel monitor ${NAME} 127.0.0.1 ${master} 2`,
      `sentinel down-after-milliseconds ${NAME} ${options.downAfterMillis ?? 1_000}`,
      `sentinel failover-timeout ${NAME} 10000`,
      `sentinel parallel-syncs ${NAME} 1`,
      `sentinel known-replica ${NAME} 127.0.0.1 ${replica}`,
      ...sentinelPorts.flatMap((other, j) => j === i ? [] : [`sentinel known-sentinel ${NAME} 127.0.0.1 ${other} ${ids[j]}`]),
      ""
    ].join("\n"))
    children.set(port, spawn("redis-sentinel", [file], { stdio: "ignore" }))
  })
  for (const port of sentinelPorts) await listening(port)
  // Ready when every sentinel knows the replica and the two other sentinels (a promotion needs both).
  await until("the sentinels to know the replica and each other", async () => {
    for (const port of sentinelPorts) {
      const replicas = (await tryCli(port, "sentinel", "replicas", NAME)) ?? ""
      const others = (await tryCli(port, "sentinel", "sentinels", NAME)) ?? ""
      const ready = replicas.includes(String(replica)) && !/s_down|disconnected/.test(replicas) &&
        sentinelPorts.filter((p) => p !== port).every((p) => others.includes(String(p)))
      if (!ready) return false
    }
    return true
  }, 15_000)

  const namedBy = async (port: number) => {
    const named = await tryCli(port, "sentinel", "get-master-addr-by-name", NAME)
    return named === undefined ? undefined : Number(named.split("\n")[1])
  }
  const masterPort = async () => (await namedBy(sentinelPorts[0]!))!
  const isWritableMaster = async (port: number) => /role:master/.test((await tryCli(port, "info", "replication")) ?? "")
  /** Waits until every sentinel names a master other than `old`, and it has taken the role. */
  const promoted = async (old: number) => {
    await until("the sentinels to name a new master", async () => {
      for (const port of sentinelPorts) {
        const named = await namedBy(port)
        if (named === undefined || named === old) return false
      }
      return true
    }, 15_000)
    const now = await masterPort()
    await until("the new master to accept writes", () => isWritableMaster(now), 5_000)
    return now
  }
  return {
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`),
    name: NAME,
    masterPort,
    isWritableMaster,
    failover: async () => {
      const old = await masterPort()
      await cli(sentinelPorts[0]!, "sentinel", "failover", NAME)
      return promoted(old)
    },
    killMaster: async () => {
      const old = await masterPort()
      const child = children.get(old)!
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        child.kill("SIGKILL")
      })
      return promoted(old)
    },
    pauseSentinels: (paused) => {
      for (const port of sentinelPorts) children.get(port)!.kill(paused ? "SIGSTOP" : "SIGCONT")
    },
    killSentinels: () => {
      for (const port of sentinelPorts) children.get(port)!.kill("SIGKILL")
    },
    stop: () => {
      for (const child of children.values()) child.kill("SIGKILL")
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
