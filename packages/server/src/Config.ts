/**
 * The one place that reads configuration, validated at start with clear messages.
 *
 * @since 1.0.0
 */
import { BanPolicy, Idempotency, Usage } from "@petstore/core"
import { isToken68 } from "@petstore/http-node/BearerToken"
import type * as Connections from "@petstore/http-node/Connections"
import * as Config from "effect/Config"
import * as SchemaIssue from "effect/SchemaIssue"
import * as ConfigRules from "./ConfigRules.js"
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { LOG_LEVELS, type LogConfig, type RedisConfig, type SentinelConfig, type StoreConfig } from "./ServerConfig.js"
import type * as Shape from "./ServerConfig.js"
import * as StoreRegistry from "./StoreRegistry.js"
import * as WebhookSettings from "./WebhookSettings.js"

export type { LogConfig, RedisConfig, SentinelConfig, StoreConfig } from "./ServerConfig.js"
/** What a server is configured with (its shape lives in `ServerConfig.ts`; this module reads it). */
export type ServerConfig = Shape.ServerConfig
export { LOG_LEVELS } from "./ServerConfig.js"

const url = (name: string) =>
  Config.String(name).pipe(
    ConfigRules.validate({
      message: `${name} must be an absolute http(s) URL`,
      validation: (s) => {
        try {
          const u = new URL(s)
          return u.protocol === "http:" || u.protocol === "https:"
        } catch {
          return false
        }
      }
    }),
    Config.map((s) => s.replace(/\/+$/, ""))
  )

const basePath = Config.String("PETSTORE_QUICKSTART_BASE_PATH").pipe(
  ConfigRules.validate({
    message: "PETSTORE_QUICKSTART_BASE_PATH must be a path such as /v1 or /quickstart/v1 (letters, digits, - _ . /; no trailing slash)",
    validation: (s): s is `/${string}` => /^(\/[A-Za-z0-9._-]+)+$/.test(s)
  }),
  Config.withDefault("/v1" as const)
)

const trustProxy = Config.String("PETSTORE_TRUST_PROXY").pipe(
  ConfigRules.mapOrFail((s) => {
    const v = s.trim().toLowerCase()
    if (v === "true") return Result.succeed(1)
    if (v === "false" || v === "") return Result.succeed(0)
    const n = Number(v)
    return Number.isInteger(n) && n >= 0 && n <= 10
      ? Result.succeed(n)
      : Result.fail(ConfigRules.invalid(`PETSTORE_TRUST_PROXY must be true, false or a number of proxies (0..10), got ${JSON.stringify(s)}`))
  }),
  Config.withDefault(0)
)

/**
 * The store (`PETSTORE_STORE`, `PETSTORE_DATABASE`, `PETSTORE_DATABASE_POOL_SIZE`,
 * `PETSTORE_DATABASE_TIMEOUT_MS`) among those of
 * `registry`: `PETSTORE_STORE` names one (default: the first), and when that one keeps a database
 * the form of `PETSTORE_DATABASE` chooses among the stores that do.
 */
export const storeConfig = (registry: StoreRegistry.StoreRegistry): Config.Config<StoreConfig> =>
  Config.all({
    storeName: Config.Literals([...registry.storeNames], "PETSTORE_STORE").pipe(Config.withDefault(registry.storeNames[0])),
    // Read as a secret: a database URL may hold a password, so it is never printed.
    database: Config.option(Config.Redacted("PETSTORE_DATABASE").pipe(
      ConfigRules.validate({ message: registry.databaseRule, validation: (r) => registry.acceptsDatabase(Redacted.value(r)) })
    )),
    poolSize: Config.Int("PETSTORE_DATABASE_POOL_SIZE").pipe(
      ConfigRules.validate({ message: "PETSTORE_DATABASE_POOL_SIZE must be a whole number from 1 to 1000", validation: (n) => n >= 1 && n <= 1000 }),
      Config.withDefault(10)
    ),
    // Below the 5 s the product promises for a 503 by default; smaller for tests and impatient deployments.
    timeoutMillis: Config.option(Config.Int("PETSTORE_DATABASE_TIMEOUT_MS").pipe(
      ConfigRules.validate({
        message: "PETSTORE_DATABASE_TIMEOUT_MS must be a whole number of milliseconds from 50 to 60000",
        validation: (n) => n >= 50 && n <= 60_000
      })
    ))
  }).pipe(ConfigRules.mapOrFail(({ database, storeName, timeoutMillis, ...settings }) => {
    // A store that keeps no database (memory) with a database named: the file would be ignored.
    const keepsNoDatabase = registry.registrations.some((r) => r.selectedBy.store === storeName && r.selectedBy.database === undefined)
    if (keepsNoDatabase && Option.isSome(database)) {
      return Result.fail(ConfigRules.invalid(`PETSTORE_STORE=${storeName} keeps nothing on disk, but PETSTORE_DATABASE is set: unset PETSTORE_DATABASE, or unset PETSTORE_STORE to use the database it names`
      ))
    }
    return Result.succeed(registry.select(storeName, {
      ...settings,
      database: Option.getOrElse(database, () => Redacted.make(registry.defaultDatabase)),
      timeoutMillis: Option.getOrUndefined(timeoutMillis)
    }))
  }))

/** `host:port[,host:port…]`, each port 1 to 65535 (an IPv6 address in brackets: `[::1]:26379`). */
const sentinelNodes = Config.String("PETSTORE_REDIS_SENTINELS").pipe(
  ConfigRules.mapOrFail((s) => {
    const nodes = s.split(",").map((entry) => /^\s*(\[[^\]]+\]|[^\s:,\[\]]+):(\d{1,5})\s*$/.exec(entry))
    return nodes.every((m) => m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 65535)
      ? Result.succeed(nodes.map((m) => ({ host: m![1]!.replace(/^\[|\]$/g, ""), port: Number(m![2]) })))
      : Result.fail(ConfigRules.invalid(`PETSTORE_REDIS_SENTINELS must be host:port[,host:port…] (such as 10.0.0.1:26379,10.0.0.2:26379), got ${JSON.stringify(s)}`))
  })
)

const sentinel = Config.option(sentinelNodes).pipe(
  ConfigRules.zipWith(
    Config.String("PETSTORE_REDIS_SENTINEL_NAME").pipe(
      ConfigRules.validate({ message: "PETSTORE_REDIS_SENTINEL_NAME must be 1 to 128 characters without spaces", validation: (n) => /^\S{1,128}$/.test(n) }),
      Config.withDefault("mymaster")
    ),
    (nodes, name): SentinelConfig | undefined => Option.isSome(nodes) ? { nodes: nodes.value, name } : undefined
  )
)

const redis = Config.option(
  Config.Redacted("PETSTORE_REDIS_URL").pipe(
    ConfigRules.validate({
      message: "PETSTORE_REDIS_URL must be a redis:// or rediss:// URL",
      validation: (r) => {
        try {
          const u = new URL(Redacted.value(r).trim())
          return (u.protocol === "redis:" || u.protocol === "rediss:") && u.hostname !== ""
        } catch {
          return false
        }
      }
    })
  )
).pipe(
  ConfigRules.zipWith(
    Config.all({
      failure: Config.Literals(["open", "closed"], "PETSTORE_REDIS_FAILURE").pipe(Config.withDefault("open" as const)),
      prefix: Config.String("PETSTORE_REDIS_PREFIX").pipe(
        ConfigRules.validate({
          message: "PETSTORE_REDIS_PREFIX must be 1 to 64 characters without spaces or braces",
          validation: (s) => /^[^\s{}]{1,64}$/.test(s)
        }),
        Config.withDefault("petstore:")
      ),
      cluster: Config.Boolean("PETSTORE_REDIS_CLUSTER").pipe(Config.withDefault(false)),
      timeoutMillis: Config.Int("PETSTORE_REDIS_TIMEOUT_MS").pipe(
        ConfigRules.validate({
          message: "PETSTORE_REDIS_TIMEOUT_MS must be a whole number of milliseconds from 10 to 10000",
          validation: (n) => n >= 10 && n <= 10_000
        }),
        Config.withDefault(250)
      ),
      sentinel
    }),
    (url, rest) => ({ url: Option.getOrUndefined(url), ...rest })
  ),
  ConfigRules.mapOrFail(({ url, sentinel, ...rest }): Result.Result<RedisConfig | undefined, Config.ConfigError> => {
    if (sentinel === undefined) return Result.succeed(url === undefined ? undefined : { url, ...rest })
    // Sentinel names the master: a URL of a node, or a cluster, would say something else.
    if (url !== undefined) {
      return Result.fail(ConfigRules.invalid("PETSTORE_REDIS_URL and PETSTORE_REDIS_SENTINELS are both set: the sentinels name the master, unset PETSTORE_REDIS_URL"))
    }
    if (rest.cluster) {
      return Result.fail(ConfigRules.invalid("PETSTORE_REDIS_CLUSTER=true and PETSTORE_REDIS_SENTINELS are both set: a Redis Cluster fails over by itself, without Sentinel"))
    }
    return Result.succeed({ sentinel, ...rest })
  })
)

// At most 1 s, the shortest Retry-After: a longer grace would let a key hammer through that wait unbanned.
const banGraceMillis = Config.Int("PETSTORE_BAN_GRACE_MS").pipe(
  ConfigRules.validate({
    message: "PETSTORE_BAN_GRACE_MS must be a whole number of milliseconds from 0 to 1000",
    validation: (n) => n >= 0 && n <= 1000
  }),
  Config.withDefault(BanPolicy.DEFAULT_OPTIONS.graceMillis)
)

const bounded = (name: string, what: string, min: number, max: number) =>
  Config.option(Config.Int(name).pipe(
    ConfigRules.validate({ message: `${name} must be a whole number of ${what} from ${min} to ${max}`, validation: (n) => n >= min && n <= max })
  ))

const connections = Config.all({
  maxConnections: bounded("PETSTORE_MAX_CONNECTIONS", "connections", 1, 1_000_000),
  maxInFlight: bounded("PETSTORE_PIPELINE_DEPTH", "requests", 1, 1_024),
  maxBufferedBytes: bounded("PETSTORE_CONNECTION_BUFFER_BYTES", "bytes", 16_384, 64 * 1024 * 1024)
}).pipe(
  Config.map((limits): Partial<Connections.ConnectionLimits> =>
    Object.fromEntries(Object.entries(limits).flatMap(([name, value]) => Option.isSome(value) ? [[name, value.value]] : [])))
)

// At most 5 minutes: longer than any orchestrator waits before it kills the process anyway.
const drainDelayMillis = Config.Int("PETSTORE_DRAIN_DELAY_MS").pipe(
  ConfigRules.validate({
    message: "PETSTORE_DRAIN_DELAY_MS must be a whole number of milliseconds from 0 to 300000",
    validation: (n) => n >= 0 && n <= 300_000
  }),
  Config.withDefault(0)
)
const log = Config.all({
  format: Config.option(Config.Literals(["json", "text"], "PETSTORE_LOG_FORMAT")),
  level: Config.Literals([...LOG_LEVELS], "PETSTORE_LOG_LEVEL").pipe(Config.withDefault("info" as const)),
  accessLog: Config.Boolean("PETSTORE_ACCESS_LOG").pipe(Config.withDefault(true))
}).pipe(Config.map(({ format, ...rest }): LogConfig => ({ format: Option.getOrUndefined(format), ...rest })))
const metrics = Config.Boolean("PETSTORE_METRICS").pipe(Config.withDefault(true))

const retentionDays = (name: string, fallback: number) =>
  Config.Int(name).pipe(
    ConfigRules.validate({ message: `${name} must be a whole number of days from 1 to 3650`, validation: (n) => n >= 1 && n <= 3650 }),
    Config.withDefault(fallback)
  )
const usage = Config.all({
  on: Config.Literals(["on", "off"], "PETSTORE_USAGE").pipe(Config.withDefault("on" as const)),
  flushSeconds: Config.Number("PETSTORE_USAGE_FLUSH_SECONDS").pipe(
    ConfigRules.validate({ message: "PETSTORE_USAGE_FLUSH_SECONDS must be a number of seconds from 0.01 to 3600", validation: (n) => n >= 0.01 && n <= 3600 }),
    Config.withDefault(Usage.DEFAULT_OPTIONS.flushMillis / 1000)
  ),
  hourlyDays: retentionDays("PETSTORE_USAGE_HOURLY_RETENTION_DAYS", 90),
  dailyDays: retentionDays("PETSTORE_USAGE_DAILY_RETENTION_DAYS", 396)
}).pipe(Config.map(({ dailyDays, flushSeconds, hourlyDays, on }): ServerConfig["usage"] =>
  on === "off" ? false : {
    flushMillis: Math.round(flushSeconds * 1000),
    hourlyRetentionMillis: hourlyDays * 86_400_000,
    dailyRetentionMillis: dailyDays * 86_400_000
  }
))

const consoleConfig = Config.all({
  on: Config.Boolean("PETSTORE_CONSOLE").pipe(Config.withDefault(true)),
  sessionHours: Config.Number("PETSTORE_CONSOLE_SESSION_HOURS").pipe(
    ConfigRules.validate({
      message: "PETSTORE_CONSOLE_SESSION_HOURS must be a number of hours from 0.01 to 720",
      validation: (n) => n >= 0.01 && n <= 720
    }),
    Config.withDefault(12)
  )
}).pipe(Config.map(({ on, sessionHours }): ServerConfig["console"] => (on ? { sessionHours } : false)))

// host:port, the host a name, an IPv4 address or a bracketed IPv6 address.
const metricsAddress = Config.option(Config.String("PETSTORE_METRICS_ADDRESS").pipe(
  ConfigRules.mapOrFail((s) => {
    const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(s.trim())
    const port = match === null ? NaN : Number(match[2])
    return match !== null && port >= 1 && port <= 65535
      ? Result.succeed({ host: match[1]!.replace(/^\[(.*)\]$/, "$1"), port })
      : Result.fail(ConfigRules.invalid(`PETSTORE_METRICS_ADDRESS must be host:port (such as 127.0.0.1:9464), got ${JSON.stringify(s)}`))
  })
))

/**
 * A configuration error as one line per problem, each naming its variable. Values are never shown
 * for secrets (the admin token, the database and Redis URLs are read redacted and their checks name
 * only the rule); Effect's own messages for plain settings may quote the value given.
 */
export const describeError = (error: Config.ConfigError): string => {
  const cause = error.cause
  // A rule's own message names its variable.
  if (cause._tag === "SourceError") return cause.message
  const problems = formatIssues(cause.issue).issues.map(({ message, path }) => {
    const name = (path ?? []).map(String).join("_")
    return name === "" || message.startsWith(name) ? message : `${name}: ${message}`
  })
  return [...new Set(problems)].join("; ")
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const TTL_UNITS: Readonly<Record<string, number>> = { "": 1_000, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `PETSTORE_IDEMPOTENCY_TTL`: whole seconds, or a whole number with a unit (`s`, `m`, `h`, `d`), at least 24 hours. */
const idempotencyTtlMillis = Config.String("PETSTORE_IDEMPOTENCY_TTL").pipe(
  ConfigRules.mapOrFail((s) => {
    const match = /^([0-9]{1,9})\s*([smhd]?)$/.exec(s.trim())
    const millis = match === null ? Number.NaN : Number(match[1]) * TTL_UNITS[match[2]!]!
    return millis >= Idempotency.MIN_TTL_MILLIS
      ? Result.succeed(millis)
      : Result.fail(ConfigRules.invalid(`PETSTORE_IDEMPOTENCY_TTL must be at least 24 hours, as seconds or with a unit (86400, 24h, 2d), got ${JSON.stringify(s)}`))
  }),
  Config.withDefault(Idempotency.MIN_TTL_MILLIS)
)

/** Reads the server's configuration from the environment variables. @category config */
export const ServerConfig: Config.Config<ServerConfig> = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  adminToken: Config.option(
    Config.Redacted("PETSTORE_ADMIN_TOKEN").pipe(
      ConfigRules.validate({ message: "PETSTORE_ADMIN_TOKEN must be at least 16 characters", validation: (r) => Redacted.value(r).length >= 16 }),
      // A token outside the Bearer syntax could never be sent, so the admin API would refuse it forever.
      ConfigRules.validate({
        message: "PETSTORE_ADMIN_TOKEN must be a Bearer token: letters, digits and - . _ ~ + / only, with = allowed only at the end",
        validation: (r) => isToken68(Redacted.value(r))
      })
    )
  ),
  publicUrl: Config.option(url("PETSTORE_PUBLIC_URL")),
  stagingUrl: Config.option(url("PETSTORE_STAGING_URL")),
  environment: Config.Literals(["production", "staging"], "PETSTORE_ENVIRONMENT").pipe(Config.withDefault("production" as const)),
  quickstartBasePath: basePath,
  trustProxy,
  ipv6Subnet: Config.Int("PETSTORE_IPV6_SUBNET").pipe(
    ConfigRules.validate({ message: "PETSTORE_IPV6_SUBNET must be a prefix length from 32 to 128", validation: (n) => n >= 32 && n <= 128 }),
    Config.withDefault(64)
  ),
  store: storeConfig(StoreRegistry.builtIn),
  redis,
  banGraceMillis,
  connections,
  drainDelayMillis,
  log,
  tracing: Config.Literals(["off", "otlp"], "PETSTORE_TRACING").pipe(Config.withDefault("off" as const)),
  metrics,
  metricsAddress,
  webhooks: WebhookSettings.config,
  usage,
  console: consoleConfig,
  idempotencyTtlMillis
}).pipe(
  ConfigRules.mapOrFail(({ metricsAddress, ...c }) => {
    const address = Option.getOrUndefined(metricsAddress)
    // A metrics address with metrics off, or on the server's own address, cannot be what was meant.
    if (address !== undefined && !c.metrics) {
      return Result.fail(ConfigRules.invalid("PETSTORE_METRICS_ADDRESS is set but PETSTORE_METRICS is false: unset one of them"))
    }
    if (address !== undefined && address.port === c.port && address.host === c.host) {
      return Result.fail(ConfigRules.invalid("PETSTORE_METRICS_ADDRESS must differ from HOST:PORT, where the metrics are already served at /metrics to the admin token"))
    }
    return Result.succeed<ServerConfig>({
      ...c,
      metricsAddress: address,
      publicUrl: Option.getOrElse(c.publicUrl, () => `http://${c.host.includes(":") ? `[${c.host}]` : c.host}:${c.port}/v1`)
    })
  })
)
