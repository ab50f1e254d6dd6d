/**
 * HAProxy (Debian's haproxy) running docs/deploy/haproxy.cfg in front of instances, driven through its
 * admin socket as a deploy tool drives it: which servers are up, how many requests each has answered,
 * a server pointed at another address, a server taken out of or put back into the pool.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { pollUntil } from "./ServerProcess.js"

const CONFIG = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../../docs/deploy/haproxy.cfg")
/** Debian installs it in /usr/sbin, which a user's PATH may not hold. */
const HAPROXY = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((path) => Fs.existsSync(path)) ?? "haproxy"

/** Why HAProxy cannot be run here, or undefined when it can. */
export const haproxyMissing = (() => {
  try {
    execFileSync(HAPROXY, ["-v"], { stdio: "ignore" })
    return undefined
  } catch {
    return "haproxy is not installed (Debian's package haproxy)"
  }
})()

export interface Balancer {
  readonly child: ChildProcess
  /** Which servers (app1..app3) HAProxy holds UP now. */
  readonly up: () => Promise<ReadonlyArray<string>>
  /** How many 2xx answers each server (app1..app3) has given so far. */
  readonly answered: () => Promise<ReadonlyMap<string, number>>
  /** Points server `name` at another port (an instance started again elsewhere). */
  readonly move: (name: string, port: number) => Promise<void>
  /** Takes server `name` out of the pool (`maint`: no traffic, no checks) or puts it back (`ready`). */
  readonly setState: (name: string, state: "maint" | "ready") => Promise<void>
  readonly output: () => string
}

/** HAProxy on `bind` with the three instances at `apps`, its admin socket in `folder`. */
export const startBalancer = async (bind: number, apps: ReadonlyArray<number>, folder: string): Promise<Balancer> => {
  const socket = Path.join(folder, "haproxy.sock")
  const child: ChildProcess = spawn(HAPROXY, ["-db", "-f", CONFIG], {
    env: {
      PATH: process.env.PATH ?? "",
      PETSTORE_LB_BIND: `127.0.0.1:${bind}`,
      PETSTORE_LB_SOCKET: socket,
      ...Object.fromEntries(apps.map((port, i) => [`PETSTORE_APP${i + 1}`, `127.0.0.1:${port}`]))
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (c) => (output += String(c)))
  child.stderr!.on("data", (c) => (output += String(c)))
  const ask = (command: string) =>
    new Promise<string>((resolve, reject) => {
      const connection = Net.createConnection(socket)
      let answer = ""
      connection.on("data", (c) => (answer += String(c)))
      connection.on("end", () => resolve(answer))
      connection.on("error", reject)
      connection.write(`${command}\n`)
    })
  /** The backend's server rows of `show stat`, each as its columns by name. */
  const servers = async () => {
    const [header = "", ...rows] = (await ask("show stat")).split("\n")
    const names = header.replace(/^# /, "").split(",")
    return rows.map((l) => l.split(",")).filter((f) => f[0] === "instances" && f[1] !== "BACKEND")
      .map((f) => new Map(names.map((name, i) => [name, f[i] ?? ""])))
  }
  const move = async (name: string, port: number) => {
    const answer = await ask(`set server instances/${name} addr 127.0.0.1 port ${port}`)
    if (!/changed/i.test(answer)) throw new Error(`HAProxy did not move ${name}: ${answer}`)
  }
  const setState = async (name: string, state: "maint" | "ready") => {
    const answer = await ask(`set server instances/${name} state ${state}`)
    if (answer.trim() !== "") throw new Error(`HAProxy did not set ${name} to ${state}: ${answer}`)
  }
  const up = async () => (await servers()).filter((s) => s.get("status") === "UP").map((s) => s.get("svname")!)
  const answered = async () => new Map((await servers()).map((s) => [s.get("svname")!, Number(s.get("hrsp_2xx"))]))
  await pollUntil("HAProxy's admin socket", async () => (Fs.existsSync(socket) ? true : undefined), 200, 50)
  return { child, up, answered, move, setState, output: () => output }
}
