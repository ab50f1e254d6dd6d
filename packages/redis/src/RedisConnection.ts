/**
 * The connection of a process to Redis, on node-redis 5 (chosen by measurement: see
 * docs/decisions.md), set up to fail fast rather than wait: no offline queue (a command while the
 * connection is down fails at once), a deadline on every call (node-redis has none for a stalled
 * server), reconnection every ≤ 500 ms by itself. Scripts run as `EVALSHA`, one round trip; after a
 * Redis restart (`NOSCRIPT`) the same call is sent once more as `EVAL`, which loads the script again.
 *
 * @since 1.0.0
 */
import { createClient } from "@redis/client"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"

export interface RedisOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` for TLS. */
  readonly url: string
  /** Longest wait for an answer before a call fails (default 250 ms). */
  readonly commandTimeoutMillis?: number | undefined
}

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

export const script = (source: string): Script => ({ source, sha: createHash("sha1").update(source).digest("hex") })

/** @category services */
export class Redis extends Context.Tag("@petstore/redis/Redis")<
  Redis,
  {
    /** The URL, with its password redacted. */
    readonly where: string
    /** Runs `script` on `keys` with `args` in one round trip; its reply as integers. */
    readonly run: (
      script: Script,
      keys: ReadonlyArray<string>,
      args: ReadonlyArray<number>
    ) => Effect.Effect<ReadonlyArray<number>, RedisUnavailable>
  }
>() {}

/** @category constructors */
export const make = (options: RedisOptions): Effect.Effect<Redis["Type"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const where = redact(options.url)
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const client = createClient({
          url: options.url,
          disableOfflineQueue: true,
          socket: { connectTimeout: 1_000, reconnectStrategy: (retries: number) => Math.min(20 * 2 ** retries, 500) }
        })
        // Without a listener a dropped connection would end the process; the calls report failures.
        client.on("error", () => {})
        return client
      }),
      // Replies still owed are waited for a moment; then the socket is dropped.
      (client) =>
        Effect.promise(() => client.close().catch(() => undefined)).pipe(
          Effect.timeout("2 seconds"),
          Effect.ignore,
          Effect.zipRight(Effect.sync(() => {
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
    // fibers would cost more than the call itself). `retry`, when given, is asked once more after a
    // failure it takes (`NOSCRIPT`), within the same deadline.
    const bounded = <A>(what: string, call: () => Promise<A>, retry?: (error: unknown) => (() => Promise<A>) | undefined) =>
      Effect.async<A, RedisUnavailable>((resume) => {
        let done = false
        const timer = setTimeout(() => {
          done = true
          resume(Effect.fail(failed(what)(`no answer within ${Duration.format(deadline)}`)))
        }, deadlineMillis)
        const succeed = (value: A) => {
          if (done) return
          done = true
          clearTimeout(timer)
          resume(Effect.succeed(value))
        }
        const fail = (error: unknown) => {
          if (done) return
          done = true
          clearTimeout(timer)
          resume(Effect.fail(failed(what)(error)))
        }
        call().then(succeed, (error) => {
          const again = done ? undefined : retry?.(error)
          if (again === undefined) return fail(error)
          again().then(succeed, fail)
        })
      })

    const send = (args: Array<string>) => client.sendCommand(args) as Promise<ReadonlyArray<number>>
    const noScript = (error: unknown) => error instanceof Error && error.message.startsWith("NOSCRIPT")
    return Redis.of({
      where,
      run: (s, keys, args) => {
        // EVALSHA sha numkeys key... arg...; after a Redis restart (NOSCRIPT) the same as EVAL.
        const command = ["EVALSHA", s.sha, String(keys.length), ...keys]
        for (const arg of args) command.push(String(arg))
        return bounded("script", () => send(command), (error) => {
          if (!noScript(error)) return undefined
          return () => {
            const again = command.slice()
            again[0] = "EVAL"
            again[1] = s.source
            return send(again)
          }
        })
      }
    })
  })

/** The connection for the life of the layer; building it never waits for Redis. */
export const layer = (options: RedisOptions): Layer.Layer<Redis> => Layer.scoped(Redis, make(options))
