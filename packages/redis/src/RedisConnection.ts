/**
 * The connection of a process to Redis, on node-redis 5 (chosen by measurement: see
 * docs/decisions.md), set up to fail fast rather than wait: no offline queue (a command while the
 * connection is down fails at once), a deadline on every call (node-redis has none for a stalled
 * server), reconnection every ≤ 500 ms by itself. Scripts run as `EVALSHA`, one round trip; after a
 * Redis restart (`NOSCRIPT`) the same call is sent once more as `EVAL`, which loads the script again.
 *
 * @since 1.0.0
 */
import { createClient, createCluster } from "@redis/client"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

import { createHash } from "node:crypto"
import * as SentinelMaster from "./SentinelMaster.js"

/**
 * Redis behind Sentinel: the sentinels to ask (any one that answers is enough) and the name of the
 * master they watch; the connection follows a promotion (`SentinelMaster`).
 */
export interface SentinelOptions {
  readonly nodes: ReadonlyArray<SentinelMaster.Node>
  /** The master's name in the sentinels' configuration (`sentinel monitor <name> …`). */
  readonly name: string
}

/** Where Redis is (URL, Sentinels or Cluster) and the commands' deadline. */
export interface RedisOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` for TLS; not used with `sentinel`. */
  readonly url: string
  /** Longest wait for an answer before a call fails (default 250 ms). */
  readonly commandTimeoutMillis?: number | undefined
  /**
   * `url` is one node of a Redis Cluster (default false): the slots are learned from it, each script
   * goes to the node of its keys' slot, and MOVED and ASK redirections (resharding) are followed.
   */
  readonly cluster?: boolean | undefined
  /** The master behind these sentinels (then `url` names no node; not with `cluster`). */
  readonly sentinel?: SentinelOptions | undefined
}

/** How `where` names Redis behind Sentinel: `redis-sentinel://host:port,host:port/name`. */
export const sentinelUrl = (sentinel: SentinelOptions): string =>
  `redis-sentinel://${sentinel.nodes.map((n) => `${n.host}:${n.port}`).join(",")}/${encodeURIComponent(sentinel.name)}`

/** What `make` needs of a client, single node or cluster: a command to the node of `firstKey`. */
interface Connection {
  readonly on: (event: "error", listener: () => void) => unknown
  readonly connect: () => Promise<unknown>
  readonly close: () => Promise<unknown>
  readonly destroy: () => unknown
  readonly isOpen: boolean
  /** Sends `args` to the node of `firstKey`, unless `expired()` by the time a connection is ready. */
  readonly send: (firstKey: string | undefined, args: Array<string>, expired: () => boolean) => Promise<ReadonlyArray<number>>
}

const SOCKET = { connectTimeout: 1_000, reconnectStrategy: (retries: number) => Math.min(20 * 2 ** retries, 500) }

const connection = (options: RedisOptions): Connection => {
  if (options.sentinel !== undefined) {
    const master = SentinelMaster.follow({ ...options.sentinel, socket: SOCKET, askTimeoutMillis: options.commandTimeoutMillis ?? DEFAULT_COMMAND_TIMEOUT_MILLIS })
    return {
      on: () => undefined,
      connect: () => master.connect(),
      close: () => master.close(),
      destroy: () => master.destroy(),
      get isOpen() {
        return master.isOpen
      },
      send: (_, args, expired) => master.send(args, expired) as Promise<ReadonlyArray<number>>
    }
  }
  if (options.cluster === true) {
    // The other nodes take the seed's credentials and TLS, not its address.
    const seed = new URL(options.url)
    const credentials = {
      ...(seed.username === "" ? {} : { username: decodeURIComponent(seed.username) }),
      ...(seed.password === "" ? {} : { password: decodeURIComponent(seed.password) })
    }
    const cluster = createCluster({
      rootNodes: [{ url: options.url }],
      defaults: { ...credentials, disableOfflineQueue: true, socket: { ...SOCKET, ...(seed.protocol === "rediss:" ? { tls: true as const } : {}) } }
    })
    return {
      on: (event, listener) => cluster.on(event, listener),
      connect: () => cluster.connect(),
      close: () => cluster.close(),
      destroy: () => cluster.destroy(),
      get isOpen() {
        return cluster.isOpen
      },
      send: (firstKey, args) => cluster.sendCommand(firstKey, false, args) as Promise<ReadonlyArray<number>>
    }
  }
  const client = createClient({ url: options.url, disableOfflineQueue: true, socket: SOCKET })
  return {
    on: (event, listener) => client.on(event, listener),
    connect: () => client.connect(),
    close: () => client.close(),
    destroy: () => client.destroy(),
    get isOpen() {
      return client.isOpen
    },
    send: (_, args) => client.sendCommand(args) as Promise<ReadonlyArray<number>>
  }
}

/** A command's deadline by default, in milliseconds. */
export const DEFAULT_COMMAND_TIMEOUT_MILLIS = 250

/** A call to Redis failed or had no answer in time; `message` says which, with no password. */
export class RedisUnavailable extends Data.TaggedError("RedisUnavailable")<{ readonly message: string }> {}

/** `url` with its password replaced by `***`, for messages and logs. */
export const redact = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    return parsed.toString()
  } catch {
    return "(a malformed Redis URL)"
  }
}

/** A Lua script and its SHA-1, computed once. */
export interface Script {
  readonly source: string
  readonly sha: string
}

/** A Lua script and its SHA-1, for EVALSHA. */
export const script = (source: string): Script => ({ source, sha: createHash("sha1").update(source).digest("hex") })

/** A Redis connection (one server, a Sentinel's master, or a Cluster) and its commands with deadlines. @category services */
export class Redis extends Context.Service<
  Redis,
  {
    /** The URL, with its password redacted. */
    readonly where: string
    /** Runs `script` on `keys` with `args` in one round trip; its reply as integers. */
    readonly run: (
      script: Script,
      keys: ReadonlyArray<string>,
      args: ReadonlyArray<number>,
      /** Put after `args`. */
      texts?: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<number>, RedisUnavailable>
  }
>()("@petstore/redis/Redis") {}

/** Opens the connection for the life of the scope. @category constructors */
export const make = (options: RedisOptions): Effect.Effect<Redis["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const where = options.sentinel === undefined ? redact(options.url) : sentinelUrl(options.sentinel)
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const client = connection(options)
        // Without a listener a dropped connection would end the process; the calls report failures.
        client.on("error", () => {})
        return client
      }),
      // Replies still owed are waited for a moment; then the socket is dropped.
      (client) =>
        Effect.promise(() => client.close().catch(() => undefined)).pipe(
          Effect.timeout("2 seconds"),
          Effect.ignore,
          Effect.andThen(Effect.sync(() => {
            try {
              if (client.isOpen) client.destroy()
            } catch {
              // already closed
            }
          }))
        )
    )
    // At start, wait a moment for the first connection (not for ever: while Redis is away it stays
    // pending and reconnects by itself, and calls fail at once meanwhile).
    yield* Effect.promise(() => client.connect().then(() => undefined, () => undefined)).pipe(
      Effect.timeout(Duration.seconds(3)),
      Effect.ignore
    )
    const deadline = Duration.millis(options.commandTimeoutMillis ?? DEFAULT_COMMAND_TIMEOUT_MILLIS)
    const failed = (what: string) => (cause: unknown) =>
      new RedisUnavailable({ message: `Redis at ${where}: ${what}: ${cause instanceof Error ? cause.message : String(cause)}` })
    const deadlineMillis = Duration.toMillis(deadline)
    // The deadline is one timer beside the call (on every limited request: `Effect.timeout`'s race of
    // fibers would cost more than the call itself). The caller's fiber waits for the reply without
    // forking another (`Effect.callback`).
    const bounded = <A>(what: string, call: () => Promise<A>) =>
      Effect.callback<A, RedisUnavailable>((resume) => {
        let done = false
        const timer = setTimeout(() => {
          done = true
          resume(Exit.fail(failed(what)(`no answer within ${Duration.format(deadline)}`)))
        }, deadlineMillis)
        // A client that throws instead of rejecting (closed, say) fails the call the same way.
        let reply: Promise<A>
        try {
          reply = call()
        } catch (error) {
          reply = Promise.reject(error)
        }
        reply.then(
          (value) => {
            if (done) return
            done = true
            clearTimeout(timer)
            resume(Exit.succeed(value))
          },
          (error) => {
            if (done) return
            done = true
            clearTimeout(timer)
            resume(Exit.fail(failed(what)(error)))
          }
        )
      })

    /**
     * `script` on `keys` with `args`: `EVALSHA`, and `EVAL` after a `NOSCRIPT` (a restarted Redis).
     * A Cluster slot in the middle of a migration, some of the keys moved (`TRYAGAIN`): asked again
     * shortly, within the call's deadline (MOVED and ASK the cluster client follows itself).
     */
    const evaluate = (
      s: Script,
      keys: ReadonlyArray<string>,
      args: ReadonlyArray<number>,
      texts: ReadonlyArray<string>,
      giveUpAt: number
    ): Promise<ReadonlyArray<number>> => {
      // Past its deadline a call still queued (Sentinel, between masters) is dropped, not sent late.
      const expired = () => Date.now() > giveUpAt
      return client.send(keys[0], command("EVALSHA", s.sha, keys, args, texts), expired).then(undefined, (error) => {
        if (error instanceof Error && error.message.startsWith("NOSCRIPT")) {
          return client.send(keys[0], command("EVAL", s.source, keys, args, texts), expired).then(
            undefined,
            (again) => retry(again, s, keys, args, texts, giveUpAt)
          )
        }
        return retry(error, s, keys, args, texts, giveUpAt)
      })
    }
    const retry = (
      error: unknown,
      s: Script,
      keys: ReadonlyArray<string>,
      args: ReadonlyArray<number>,
      texts: ReadonlyArray<string>,
      giveUpAt: number
    ) => {
      if (!(error instanceof Error) || !error.message.startsWith("TRYAGAIN") || Date.now() > giveUpAt) throw error
      return new Promise((resolve) => setTimeout(resolve, 5)).then(() => evaluate(s, keys, args, texts, giveUpAt))
    }

    return Redis.of({
      where,
      run: (s, keys, args, texts = NO_TEXTS) => bounded("script", () => evaluate(s, keys, args, texts, Date.now() + deadlineMillis))
    })
  })

/** The command `name script numkeys key… arg… text…`, built in one array. */
const command = (
  name: string,
  script: string,
  keys: ReadonlyArray<string>,
  args: ReadonlyArray<number>,
  texts: ReadonlyArray<string>
): Array<string> => {
  const command = [name, script, String(keys.length)]
  for (let i = 0; i < keys.length; i++) command.push(keys[i]!)
  for (let i = 0; i < args.length; i++) command.push(String(args[i]))
  for (let i = 0; i < texts.length; i++) command.push(texts[i]!)
  return command
}

const NO_TEXTS: ReadonlyArray<string> = []

/** The connection for the life of the layer; building it never waits for Redis. */
export const layer = (options: RedisOptions): Layer.Layer<Redis> => Layer.effect(Redis, make(options))
