/**
 * The connection pool of a process to PostgreSQL, on postgres.js: a bounded pool (`poolSize`),
 * statements prepared once per connection (postgres.js prepares every query text it sees and keeps
 * it), `int8` read as numbers (ids and epoch milliseconds stay below 2^53). Every call through `run`
 * fails with `StoreUnavailable` when PostgreSQL cannot be reached or does not answer within
 * `queryTimeoutMillis`, so a request never waits longer than that on the store; the pool connects
 * again by itself on the next call once PostgreSQL accepts connections.
 *
 * The URL carries everything postgres.js reads from it: credentials, `sslmode` (`disable`,
 * `prefer`, `require`, `verify-full`), `host=/path/to/socket` for a local socket, any server
 * parameter (`application_name`, `options`). No message ever prints the password: `redact`.
 *
 * @since 1.0.0
 */
import { Context, Data, Duration, Effect, Layer } from "effect"
import postgres from "postgres"
import { Errors } from "@petstore/core"

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database?sslmode=…` (or `postgresql://`). */
  readonly url: string
  /** Most connections this process opens (default 10). */
  readonly poolSize?: number | undefined
  /** Longest wait for an answer (or a connection) before a call fails with `StoreUnavailable` (default 4 s). */
  readonly queryTimeoutMillis?: number | undefined
  /** Longest wait to open a connection (default 3 s). */
  readonly connectTimeoutMillis?: number | undefined
}

export const DEFAULT_POOL_SIZE = 10
export const DEFAULT_QUERY_TIMEOUT_MILLIS = 4_000
export const DEFAULT_CONNECT_TIMEOUT_MILLIS = 3_000
/** How long administrative work (migrations, an import) may take. */
export const ADMIN_TIMEOUT = Duration.minutes(30)

/** The database cannot be used: unreachable, refused, schema too new ... `message` says why, with no password. */
export class DatabaseOpenError extends Data.TaggedError("DatabaseOpenError")<{
  readonly url: string
  readonly message: string
  readonly cause?: unknown
}> {}

/** Whether `value` names a PostgreSQL database rather than a file. */
export const isUrl = (value: string): boolean => /^postgres(ql)?:\/\//i.test(value.trim())

/** `url` with its password replaced by `***` (and nothing else changed), for messages and logs. */
export const redact = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    for (const name of ["password", "pass"]) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, "***")
    return parsed.toString()
  } catch {
    return "(a malformed PostgreSQL URL)"
  }
}

/** The PostgreSQL error code (SQLSTATE) or Node error code somewhere in `error`'s causes. */
export const errorCode = (error: unknown): string | undefined => {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === "object" && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === "string") return code
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}

/** A sentence for a failure to reach or use the database at `url` (never with its password). */
export const explain = (url: string, error: unknown): string => {
  const where = redact(url)
  const code = errorCode(error) ?? ""
  if (code === "ECONNREFUSED") return `PostgreSQL at ${where} refuses connections: is it running, and on that host and port?`
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `PostgreSQL at ${where}: the host name cannot be resolved`
  if (code === "CONNECT_TIMEOUT" || code === "ETIMEDOUT") return `PostgreSQL at ${where} did not answer in time`
  if (code === "3D000") return `PostgreSQL at ${where}: the database does not exist (create it first)`
  if (code === "28P01" || code === "28000") return `PostgreSQL at ${where} refused the credentials`
  const message = error instanceof Error ? error.message : String(error)
  // A driver message may quote the connection string; never let a password through.
  return `PostgreSQL at ${where} cannot be used: ${scrub(url, message)}`
}

const scrub = (url: string, text: string): string => {
  try {
    const password = decodeURIComponent(new URL(url).password)
    return password === "" ? text : text.split(password).join("***")
  } catch {
    return text
  }
}

/** The postgres.js client (a pool). */
export type Sql = postgres.Sql<Record<string, never>>

/** @category services */
export class Database extends Context.Tag("@petstore/postgres/Database")<
  Database,
  {
    /** The URL, with its password redacted. */
    readonly where: string
    readonly sql: Sql
    /**
     * Runs `query` against the pool: any failure, or no answer within the query timeout, is
     * `StoreUnavailable` (a transaction that failed was rolled back by PostgreSQL: nothing half-written).
     */
    readonly run: <A>(
      query: (sql: Sql) => Promise<A>,
      timeout?: Duration.DurationInput
    ) => Effect.Effect<A, Errors.StoreUnavailable>
  }
>() {}

/** Opens the pool (no connection yet: postgres.js connects on first use). */
export const open = (options: PostgresOptions): Sql =>
  postgres(options.url, {
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connect_timeout: Math.max(1, Math.ceil((options.connectTimeoutMillis ?? DEFAULT_CONNECT_TIMEOUT_MILLIS) / 1000)),
    prepare: true,
    // Ids and epoch milliseconds are int8; they are below 2^53, so they are read as numbers.
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } } as never,
    onnotice: () => {},
    connection: { application_name: "petstore" }
  }) as unknown as Sql

/** @category constructors */
export const make = (options: PostgresOptions) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => open(options)),
      (sql) => Effect.promise(() => sql.end({ timeout: 5 })).pipe(Effect.timeout("6 seconds"), Effect.ignore)
    ),
    (sql) => {
      const where = redact(options.url)
      const timeout = Duration.millis(options.queryTimeoutMillis ?? DEFAULT_QUERY_TIMEOUT_MILLIS)
      const unavailable = (cause: unknown) => new Errors.StoreUnavailable({ cause: new Error(explain(options.url, cause)) })
      return Database.of({
        where,
        sql,
        run: (query, within = timeout) =>
          Effect.tryPromise({ try: () => query(sql), catch: unavailable }).pipe(
            Effect.timeoutFail({
              duration: within,
              onTimeout: () => unavailable(new Error(`no answer within ${Duration.format(within)}`))
            })
          )
      })
    }
  )

/**
 * The pool, closed when the layer is released. The first query is made here, so an unreachable
 * server, a missing database or refused credentials stop the start with a sentence.
 *
 * @category layers
 */
export const layer = (options: PostgresOptions): Layer.Layer<Database, DatabaseOpenError> =>
  Layer.scoped(
    Database,
    Effect.tap(make(options), (db) =>
      db.run((sql) => sql`SELECT 1`).pipe(
        Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error }))
      ))
  )

const messageOf = (error: Errors.StoreUnavailable): string =>
  error.cause instanceof Error ? error.cause.message : String(error.cause)
