/**
 * The connection pool of a process to PostgreSQL, on node-postgres (`pg`): a bounded pool
 * (`poolSize`), every statement named and so prepared once per connection (`Statement`, made when a
 * store is built), `int8` read as numbers (ids and epoch milliseconds stay below 2^53). Every call
 * fails with `StoreUnavailable` when PostgreSQL cannot be reached or does not answer within
 * `queryTimeoutMillis`, so a request never waits longer than that on the store; the pool connects
 * again by itself on the next call once PostgreSQL accepts connections.
 *
 * The URL carries what node-postgres reads from it: credentials, `sslmode` (`disable`, `prefer`,
 * `require`, `verify-full`, `no-verify`), `sslrootcert`, `host=/path/to/socket` for a local
 * socket, `application_name`, `options=-c name=value`. No message ever prints the password: `redact`.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import pg from "pg"
import { Errors } from "@petstore/core"
import { isUrl, redact } from "./DatabaseUrl.js"

/** The database URL, the pool's size and the deadlines. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database?sslmode=…` (or `postgresql://`). */
  readonly url: string
  /** Most connections this process opens for queries (default 10); one more LISTENs. */
  readonly poolSize?: number | undefined
  /** Longest wait for an answer (or a connection) before a call fails with `StoreUnavailable` (default 4 s). */
  readonly queryTimeoutMillis?: number | undefined
  /** Longest wait to open a connection (default 3 s). */
  readonly connectTimeoutMillis?: number | undefined
}

/** The pool's size by default. */
export const DEFAULT_POOL_SIZE = 10
/** A statement's deadline by default, in milliseconds. */
export const DEFAULT_QUERY_TIMEOUT_MILLIS = 4_000
/** A connection's deadline by default, in milliseconds. */
export const DEFAULT_CONNECT_TIMEOUT_MILLIS = 3_000
/** How long administrative work (migrations, an import) may take. */
export const ADMIN_TIMEOUT = Duration.minutes(30)

/** The database cannot be used: unreachable, refused, schema too new ... `message` says why, with no password. */
export class DatabaseOpenError extends Data.TaggedError("DatabaseOpenError")<{
  readonly url: string
  readonly message: string
  readonly cause?: unknown
}> {}

export { isUrl, redact }

/** The PostgreSQL error code (SQLSTATE) or Node error code somewhere in `error`'s causes. */
export const errorCode = (error: unknown): string | undefined => {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === "object" && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === "string") return code
    const errors = (e as { errors?: unknown }).errors
    e = Array.isArray(errors) && errors.length > 0 ? errors[0] : (e as { cause?: unknown }).cause
  }
  return undefined
}

const scrub = (url: string, text: string): string => {
  try {
    const password = decodeURIComponent(new URL(url).password)
    return password === "" ? text : text.split(password).join("***")
  } catch {
    return text
  }
}

/** A sentence for a failure to reach or use the database at `url` (never with its password). */
export const explain = (url: string, error: unknown): string => {
  const where = redact(url)
  const code = errorCode(error) ?? ""
  if (code === "ECONNREFUSED") return `PostgreSQL at ${where} refuses connections: is it running, and on that host and port?`
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `PostgreSQL at ${where}: the host name cannot be resolved`
  if (code === "ETIMEDOUT" || /timeout/i.test(String((error as Error)?.message))) return `PostgreSQL at ${where} did not answer in time`
  if (code === "3D000") return `PostgreSQL at ${where}: the database does not exist (create it first)`
  if (code === "28P01" || code === "28000") return `PostgreSQL at ${where} refused the credentials`
  const message = error instanceof Error ? error.message : String(error)
  // A driver message may quote the connection string; never let a password through.
  return `PostgreSQL at ${where} cannot be used: ${scrub(url, message)}`
}

/** SQLSTATE of a write on a server that takes none (a standby, or a primary fenced read-only). */
const READ_ONLY = "25006"

/** A statement with a name: each connection prepares it the first time it runs it, then reuses it. */
export interface Statement {
  readonly name: string
  readonly text: string
}

/** Names `text` (the same text always gets the same name, so no two statements collide). */
export const statement = (text: string): Statement => ({
  name: `petstore_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`,
  text
})

/** A connection of the pool, held for a transaction. */
export type Client = pg.PoolClient

/** Runs `statement` on `client` (inside a transaction), giving up after the default query timeout. */
export const queryOn = async <R>(client: pg.ClientBase, s: Statement, values: ReadonlyArray<unknown>): Promise<Array<R>> =>
  (await client.query({
    name: s.name,
    text: s.text,
    values: values as Array<unknown>,
    query_timeout: DEFAULT_QUERY_TIMEOUT_MILLIS
  } as pg.QueryConfig)).rows as Array<R>

/** The PostgreSQL pool and its statements, each with a deadline. @category services */
export class Database extends Context.Service<
  Database,
  {
    /** The URL, with its password redacted. */
    readonly where: string
    /** The rows of one prepared statement, run on any connection of the pool. */
    readonly query: <R>(
      statement: Statement,
      values: ReadonlyArray<unknown>,
      timeout?: Duration.Input
    ) => Effect.Effect<Array<R>, Errors.StoreUnavailable>
    /**
     * `work` inside `BEGIN … COMMIT` on one connection; rolled back if it throws. Any failure, or no
     * answer within the timeout, is `StoreUnavailable`: nothing half-written.
     */
    readonly transaction: <A>(
      work: (client: Client) => Promise<A>,
      timeout?: Duration.Input
    ) => Effect.Effect<A, Errors.StoreUnavailable>
    /**
     * Listens on `channel` for the life of the scope, on a connection of its own that is opened again
     * whenever it is lost; `onListening` runs at each (re)start (notifications may have been missed).
     */
    readonly listen: (
      channel: string,
      onNotification: (payload: string) => void,
      onListening: () => void
    ) => Effect.Effect<void, never, Scope.Scope>
    /**
     * A connection of its own for the life of the scope, opened again (every 500 ms) whenever it is
     * lost: `setup` runs on each opening, `onLost` at each loss. For session state such as LISTEN or
     * a session-level advisory lock.
     */
    readonly session: (setup: (client: pg.Client) => Promise<void>, onLost?: () => void) => Effect.Effect<void, never, Scope.Scope>
  }
>()("@petstore/postgres/Database") {}

/**
 * Node-postgres configuration for `options`; int8 as numbers on this pool only. PostgreSQL itself
 * cancels a statement that runs longer than the query timeout (`statement_timeout`), so a statement
 * the caller stopped waiting for never commits later; TCP keep-alive notices a dead peer.
 */
const clientConfig = (options: PostgresOptions): pg.ClientConfig => ({
  connectionString: options.url,
  connectionTimeoutMillis: options.connectTimeoutMillis ?? DEFAULT_CONNECT_TIMEOUT_MILLIS,
  statement_timeout: options.queryTimeoutMillis ?? DEFAULT_QUERY_TIMEOUT_MILLIS,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  application_name: "petstore",
  types: { getTypeParser: ((oid: number, format?: string) => oid === 20 ? Number : pg.types.getTypeParser(oid, format as never)) as never }
})

/**
 * The connections of a pool, tracked against the primary behind the URL, which can change (a
 * standby promoted, the old primary fenced read-only). A connection that answers "read-only" is on
 * a server that no longer takes writes: it is dropped, and so is every connection opened before it
 * (the pool's at their next use, the sessions at once), so the next ones go to whatever the URL now
 * reaches.
 */
interface Primary {
  /** A connection of the pool opened since the primary last changed. */
  readonly acquire: () => Promise<pg.PoolClient>
  /** Whether `error` says `client`'s server takes no writes (then the connections before it are dropped). */
  readonly answeredReadOnly: (client: pg.ClientBase, error: unknown) => boolean
  /** The sessions' connections (`session`), ended when the primary changes. */
  readonly sessions: Set<pg.Client>
}

const trackPrimary = (pool: pg.Pool): Primary => {
  let epoch = 0
  const epochs = new WeakMap<pg.ClientBase, number>()
  const sessions = new Set<pg.Client>()
  return {
    sessions,
    answeredReadOnly: (client, error) => {
      if (errorCode(error) !== READ_ONLY) return false
      if (epochs.get(client) === epoch) {
        epoch++
        for (const session of sessions) session.end().catch(() => {})
      }
      return true
    },
    acquire: async () => {
      for (;;) {
        const client = await pool.connect()
        const since = epochs.get(client)
        if (since === epoch) return client
        if (since === undefined) {
          epochs.set(client, epoch)
          return client
        }
        client.release(true)
      }
    }
  }
}

/**
 * `run` with a deadline: one timer beside the call, as the Redis connection's (racing each statement
 * against `Effect.timeout` forks two fibers per statement). At the deadline, or when the caller is
 * interrupted, `signal` aborts (a transaction then drops its connection, so PostgreSQL rolls back).
 */
const bounded = <A>(
  unavailable: (cause: unknown) => Errors.StoreUnavailable,
  run: (signal: AbortSignal) => Promise<A>,
  input: Duration.Input
) =>
  Effect.callback<A, Errors.StoreUnavailable>((resume) => {
    const within = Duration.fromInputUnsafe(input)
    const controller = new AbortController()
    const deadline = setTimeout(() => {
      controller.abort()
      resume(Effect.fail(unavailable(new Error(`no answer within ${Duration.format(within)}`))))
    }, Duration.toMillis(within))
    run(controller.signal).then(
      (value) => {
        clearTimeout(deadline)
        resume(Effect.succeed(value))
      },
      (error: unknown) => {
        clearTimeout(deadline)
        resume(Effect.fail(unavailable(error)))
      }
    )
    return Effect.sync(() => {
      clearTimeout(deadline)
      controller.abort()
    })
  })

/** `Database.session` over connections made with `config`, each kept in `sessions` while open. */
const sessionOf = (config: pg.ClientConfig, sessions: Set<pg.Client>): Database["Service"]["session"] => (setup, onLost) =>
  Effect.gen(function*() {
    let stopped = false
    let current: pg.Client | undefined
    let retry: NodeJS.Timeout | undefined
    const open = () => {
      if (stopped) return
      const client = new pg.Client(config)
      current = client
      sessions.add(client)
      let ended = false
      const reopen = () => {
        if (ended) return
        ended = true
        sessions.delete(client)
        client.end().catch(() => {})
        onLost?.()
        if (!stopped) retry = setTimeout(open, 500)
      }
      client.on("error", reopen)
      client.on("end", reopen)
      client.connect().then(() => setup(client)).catch(reopen)
    }
    open()
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        stopped = true
        clearTimeout(retry)
        await current?.end().catch(() => {})
      }).pipe(Effect.timeout("2 seconds"), Effect.ignore)
    )
  })

/**
 * One statement on a connection of the pool. A statement without an answer in time fails, and its
 * connection is dropped (node-postgres's query timeout), so nothing waits behind it.
 */
const queryOnPool = async <R>(primary: Primary, s: Statement, values: ReadonlyArray<unknown>, within: Duration.Input) => {
  const client = await primary.acquire()
  let broken = false
  // As in a transaction: a checked-out connection has no listener of the pool's, and an error
  // event without one (the connection reset mid-statement) would end the process.
  const onError = () => (broken = true)
  client.on("error", onError)
  try {
    return (await client.query({
      name: s.name,
      text: s.text,
      values: values as Array<unknown>,
      query_timeout: Duration.toMillis(within)
    } as pg.QueryConfig)).rows as Array<R>
  } catch (error) {
    // As node-postgres's pool.query does: a connection that failed a statement is not kept.
    primary.answeredReadOnly(client, error)
    broken = true
    throw error
  } finally {
    client.removeListener("error", onError)
    client.release(broken)
  }
}

/** `work` inside `BEGIN … COMMIT` on a connection of the pool, abandoned when `signal` aborts. */
const transactionOnPool = async <A>(primary: Primary, work: (client: Client) => Promise<A>, signal: AbortSignal) => {
  const client = await primary.acquire()
  let broken = false
  // A checked-out connection has no listener of the pool's: without this one, a connection
  // that breaks mid-transaction (PostgreSQL restarted) would end the process.
  const onError = () => (broken = true)
  client.on("error", onError)
  // The caller stopped waiting: drop the connection, so PostgreSQL rolls back what was begun.
  const abandon = () => {
    broken = true
    ;(client as unknown as { connection?: { stream?: { destroy: () => void } } }).connection?.stream?.destroy()
  }
  signal.addEventListener("abort", abandon)
  try {
    await client.query("BEGIN")
    const result = await work(client)
    if (signal.aborted) throw new Error("the caller stopped waiting; rolled back")
    await client.query("COMMIT")
    return result
  } catch (error) {
    if (primary.answeredReadOnly(client, error)) broken = true
    if (!broken) await client.query("ROLLBACK").catch(() => (broken = true))
    throw error
  } finally {
    signal.removeEventListener("abort", abandon)
    client.removeListener("error", onError)
    client.release(broken)
  }
}

/** What every connection of the pool runs first: the store's statements are written for READ COMMITTED (`petstore_list_pets` needs it). */
const READ_COMMITTED = "SET default_transaction_isolation = 'read committed'"

/** Opens the pool for the life of the scope. @category constructors */
export const make = (options: PostgresOptions): Effect.Effect<Database["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const config = clientConfig(options)
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        // Prepared statements live as long as their connection: idle connections are kept.
        // `onConnect` runs before a connection is handed out, while the pool still listens for its errors.
        const onConnect = (client: pg.ClientBase) => client.query(READ_COMMITTED).then(() => undefined)
        const pool = new pg.Pool({ ...config, max: options.poolSize ?? DEFAULT_POOL_SIZE, idleTimeoutMillis: 0, onConnect })
        // An idle connection that breaks (PostgreSQL restarted) is dropped by the pool; without a
        // listener the error would end the process.
        pool.on("error", () => {})
        return pool
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeout("5 seconds"), Effect.ignore)
    )
    const primary = trackPrimary(pool)
    const timeout = Duration.millis(options.queryTimeoutMillis ?? DEFAULT_QUERY_TIMEOUT_MILLIS)
    const unavailable = (cause: unknown) => new Errors.StoreUnavailable({ cause: new Error(explain(options.url, cause)) })
    const session = sessionOf(config, primary.sessions)
    return Database.of({
      where: redact(options.url),
      query: <R>(s: Statement, values: ReadonlyArray<unknown>, within: Duration.Input = timeout) =>
        bounded(unavailable, () => queryOnPool<R>(primary, s, values, within), within),
      transaction: (work, within = timeout) => bounded(unavailable, (signal) => transactionOnPool(primary, work, signal), within),
      listen: (channel, onNotification, onListening) =>
        session(async (client) => {
          client.on("notification", (n) => {
            if (n.channel === channel) onNotification(n.payload ?? "")
          })
          await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
          onListening()
        }, onListening), // whatever was cached may have changed while no notification could arrive
      session
    })
  })

/**
 * The pool, closed when the layer is released. The first query is made here, so an unreachable
 * server, a missing database or refused credentials stop the start with a sentence.
 *
 * @category layers
 */
export const layer = (options: PostgresOptions): Layer.Layer<Database, DatabaseOpenError> =>
  Layer.effect(
    Database,
    Effect.tap(make(options), (db) =>
      db.query(statement("SELECT 1"), []).pipe(
        Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error }))
      ))
  )

/** The sentence a `StoreUnavailable` of this module carries. */
export const messageOf = (error: Errors.StoreUnavailable): string =>
  error.cause instanceof Error ? error.cause.message : String(error.cause)
