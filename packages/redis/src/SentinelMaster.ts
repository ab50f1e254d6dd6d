/**
 * Redis behind Sentinel: a connection to the master the sentinels name, which follows a promotion.
 * The sentinels are asked (`SENTINEL get-master-addr-by-name`, one kept connection to each, the one
 * that answered last first) at start, every second, as soon as the master stops answering, and when
 * it answers READONLY (a master demoted to a replica: that call is then sent once more, to the new
 * master). A node they name that differs from the current one gets a new connection and takes every
 * call from then on; the old one is dropped once it has answered the calls it had (or after one call's
 * deadline), and a call it dropped unanswered is sent once more, to the new master.
 *
 * Built on node-redis's plain client, not on its `createSentinel`: in @redis/client 5.12 that client
 * holds every command while no sentinel answers (even with the master up), prints a stack trace
 * each second meanwhile, and never recovers if the sentinels were away when it started
 * (redis/node-redis#3127, #3237, #3385); see docs/decisions.md.
 *
 * @since 1.0.0
 */
import { createClient, ErrorReply } from "@redis/client"

/** A host and port, as Sentinel names its nodes. */
export interface Node {
  readonly host: string
  readonly port: number
}

/** The Sentinels to ask and the master's name. */
export interface SentinelMasterOptions {
  /** The sentinels to ask (any one that answers is enough). */
  readonly nodes: ReadonlyArray<Node>
  /** The master's name in the sentinels' configuration (`sentinel monitor <name> …`). */
  readonly name: string
  /** Of every connection (to the sentinels and to the master). */
  readonly socket: { readonly connectTimeout: number; readonly reconnectStrategy: (retries: number) => number }
  /** Longest wait for one sentinel's answer before the next is asked. */
  readonly askTimeoutMillis: number
  /** How often the sentinels are asked while all goes well (default 1 s). */
  readonly checkEveryMillis?: number | undefined
}

/** A call given up by its caller (deadline passed) before a master could take it: not sent. */
export const ABANDONED = "not sent: its caller stopped waiting"

/** The sentinels are asked at most this often because calls fail. */
const ASK_AT_MOST_EVERY_MILLIS = 50

const newClient = (node: Node, socket: SentinelMasterOptions["socket"]) => {
  const client = createClient({ disableOfflineQueue: true, socket: { ...socket, host: node.host, port: node.port } })
  // Failures are the calls' to report; the client reconnects by itself.
  client.on("error", () => {})
  return client
}

type Client = ReturnType<typeof newClient>

/** A master's connection and the calls it owes replies to. */
interface Master {
  readonly at: string
  readonly client: Client
  inFlight: number
  retireTimer: ReturnType<typeof setTimeout> | undefined
}

const within = <A>(millis: number, promise: Promise<A>): Promise<A | undefined> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), millis)))
  ])
}

/** A connection to the master the Sentinels name, following its failovers. */
export interface SentinelMaster {
  /** Connects to the sentinels and to the master they name (waits at most a moment for it). */
  readonly connect: () => Promise<void>
  readonly close: () => Promise<void>
  readonly destroy: () => void
  readonly isOpen: boolean
  /** Sends `args` to the master, unless `expired()` before one could take it. */
  readonly send: (args: Array<string>, expired: () => boolean) => Promise<unknown>
}

/** Drops a connection (a client closed already throws: it is dropped then). */
const drop = (client: Client) => {
  try {
    if (client.isOpen) client.destroy()
  } catch {
    // closed already
  }
}

const pause = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** The sentinels, the master they name, and the connections to masters no longer named. */
class Follower {
  private readonly sentinels: ReadonlyArray<Client>
  /** The sentinel that answered last, asked first. */
  private first = 0
  private master: Master | undefined
  /** Connections to masters no longer named that still owe replies. */
  private readonly retiring = new Set<Master>()
  open = false
  private timer: ReturnType<typeof setInterval> | undefined
  private asking: Promise<void> | undefined
  private askedAt = 0

  constructor(private readonly options: SentinelMasterOptions) {
    this.sentinels = options.nodes.map((node) => newClient(node, options.socket))
  }

  async connect(): Promise<void> {
    this.open = true
    for (const sentinel of this.sentinels) sentinel.connect().catch(() => undefined)
    this.timer = setInterval(() => void this.refresh(), this.options.checkEveryMillis ?? 1_000)
    this.timer.unref()
    // The sentinels' connections come up concurrently; asked as soon as one is ready.
    const giveUpAt = Date.now() + this.options.socket.connectTimeout
    while (this.master === undefined && Date.now() < giveUpAt) {
      if (this.sentinels.some((s) => s.isReady)) await this.refresh()
      if (this.master === undefined) await pause(10)
    }
  }

  async close(): Promise<void> {
    this.open = false
    if (this.timer !== undefined) clearInterval(this.timer)
    // Replies owed by a connection that is up are waited for; one that is down is dropped.
    await Promise.all(this.clients().map((c) => c.isReady ? c.close().catch(() => c.destroy()) : c.isOpen ? c.destroy() : undefined))
  }

  destroy(): void {
    this.open = false
    if (this.timer !== undefined) clearInterval(this.timer)
    for (const c of this.clients()) if (c.isOpen) c.destroy()
  }

  async send(args: Array<string>, expired: () => boolean): Promise<unknown> {
    for (let asked = false; ; asked = true) {
      const current = this.master
      if (current !== undefined && current.client.isReady) {
        current.inFlight++
        try {
          return await current.client.sendCommand(args)
        } catch (error) {
          if (asked) throw error
          // No answer (the connection was dropped) because the sentinels named another master
          // meanwhile: sent once more, to that one. An error the old master answered is its answer.
          if (!(error instanceof ErrorReply) && this.master !== current && this.master?.client.isReady === true) {
            if (expired()) throw new Error(ABANDONED)
            continue
          }
          // A master demoted to a replica (a failover): asked where the master is, sent once more.
          if (!(error instanceof Error) || !error.message.startsWith("READONLY")) throw error
        } finally {
          this.settled(current)
        }
      } else if (asked) {
        throw new Error(`Sentinel master ${this.options.name}: ${current === undefined ? "none named yet" : `${current.at} does not answer`}`)
      }
      if (expired()) throw new Error(ABANDONED)
      await this.askAgain()
      if (expired()) throw new Error(ABANDONED)
    }
  }

  /** Where the first sentinel to answer says the master is; `undefined` when none knows. */
  private async ask(): Promise<Node | undefined> {
    const sentinels = this.sentinels
    for (let i = 0; i < sentinels.length; i++) {
      const index = (this.first + i) % sentinels.length
      const sentinel = sentinels[index]!
      if (!sentinel.isReady) continue
      const named = await within(
        this.options.askTimeoutMillis,
        sentinel.sendCommand<Array<string> | null>(["SENTINEL", "get-master-addr-by-name", this.options.name]).catch(() => undefined)
      )
      if (named === undefined) continue
      this.first = index
      // null: this sentinel does not watch a master of that name.
      if (named === null || named.length < 2) return undefined
      return { host: String(named[0]), port: Number(named[1]) }
    }
    return undefined
  }

  /** Asks the sentinels (one question at a time) and moves to the master they name if it changed. */
  private refresh(): Promise<void> {
    if (this.asking !== undefined) return this.asking
    this.askedAt = Date.now()
    this.asking = this.moveToNamedMaster().finally(() => {
      this.asking = undefined
    })
    return this.asking
  }

  private async moveToNamedMaster(): Promise<void> {
    const node = await this.ask()
    if (node === undefined || !this.open) return
    const at = `${node.host}:${node.port}`
    if (this.master?.at === at) return
    const client = newClient(node, this.options.socket)
    // It reconnects by itself if it cannot connect now; calls fail at once meanwhile.
    await within(this.options.socket.connectTimeout, client.connect().catch(() => undefined))
    const old = this.master
    this.master = { at, client, inFlight: 0, retireTimer: undefined }
    if (!this.open && client.isOpen) client.destroy()
    if (old !== undefined) this.retire(old)
  }

  /**
   * After a failure: asks the sentinels (or joins the question being asked); when they were asked a
   * moment ago, after a pause, so that a burst of failing calls asks once.
   */
  private async askAgain(): Promise<void> {
    if (this.asking !== undefined) return this.asking
    const wait = this.askedAt + ASK_AT_MOST_EVERY_MILLIS - Date.now()
    if (wait > 0) await pause(wait)
    return this.refresh()
  }

  /**
   * The connection to a master no longer named takes no new call; it is dropped once it has answered
   * the calls it had (a demoted master still answers them), or after one call's deadline. It is not
   * `close()`d: a closed node-redis client ignores its server hanging up (Sentinel kills the clients of
   * a master it demotes), so the calls it owed would never settle; open, they fail and are sent again.
   */
  private retire(old: Master): void {
    if (old.inFlight === 0 || !old.client.isReady) return drop(old.client)
    this.retiring.add(old)
    old.retireTimer = setTimeout(() => {
      this.retiring.delete(old)
      drop(old.client)
    }, this.options.askTimeoutMillis)
    old.retireTimer.unref()
  }

  /** A call on `m` is over: a retiring connection with nothing owed any more is dropped. */
  private settled(m: Master): void {
    m.inFlight--
    if (m.inFlight === 0 && this.retiring.delete(m)) {
      clearTimeout(m.retireTimer)
      drop(m.client)
    }
  }

  private clients(): Array<Client> {
    return [...this.sentinels, ...(this.master === undefined ? [] : [this.master.client]), ...[...this.retiring].map((m) => m.client)]
  }
}

/** Connects to the master the Sentinels name, and follows it. */
export const follow = (options: SentinelMasterOptions): SentinelMaster => {
  const follower = new Follower(options)
  return {
    connect: () => follower.connect(),
    close: () => follower.close(),
    destroy: () => follower.destroy(),
    get isOpen() {
      return follower.open
    },
    send: (args, expired) => follower.send(args, expired)
  }
}
