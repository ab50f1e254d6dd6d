/**
 * What a server is configured with: `Config` reads it from the environment, and the
 * modules that build the server from it (stores, metrics, logging) take it without reading anything.
 *
 * @since 1.0.0
 */
import type { Usage } from "@petstore/core"
import type * as Connections from "@petstore/http-node/Connections"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as WebhookSettings from "./WebhookSettings.js"

/**
 * Where the data lives: the configuration of one of the stores the `StoreRegistry` knows (a SQLite
 * file, a PostgreSQL database shared by any number of instances, or plain process memory): its
 * registration's `tag`, and whatever settings that registration keeps.
 */
export interface StoreConfig {
  readonly _tag: string
}

/** What a server is configured with, as `Config` reads it from the environment. */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  /** Production base URL of the public interface (ends with the `/v1` prefix). */
  readonly publicUrl: string
  readonly stagingUrl: Option.Option<string>
  readonly environment: "production" | "staging"
  readonly quickstartBasePath: `/${string}`
  /** How many proxies in front of the server append to `X-Forwarded-For` (0: trust none). */
  readonly trustProxy: number
  /** The prefix length IPv6 clients are grouped by for failed-authentication limits (`PETSTORE_IPV6_SUBNET`, default 64). */
  readonly ipv6Subnet?: number | undefined
  /**
   * The stores (`PETSTORE_STORE`, `PETSTORE_DATABASE`, `PETSTORE_DATABASE_POOL_SIZE`); from the
   * environment the default is SQLite at ./data/petstore.db. A configuration built in code without
   * it runs in memory.
   */
  readonly store?: StoreConfig | undefined
  /** Where the rate limiter's state is shared (`PETSTORE_REDIS_URL`); none: in each process's memory. */
  readonly redis?: RedisConfig | undefined
  /**
   * After the first refusal of a wait, how long refused requests do not count toward a ban
   * (`PETSTORE_BAN_GRACE_MS`, default 250).
   */
  readonly banGraceMillis: number
  /**
   * Bounds on connections (`PETSTORE_MAX_CONNECTIONS`, `PETSTORE_PIPELINE_DEPTH`,
   * `PETSTORE_CONNECTION_BUFFER_BYTES`); what is not set keeps its default (`Connections.defaults`).
   */
  readonly connections?: Partial<Connections.ConnectionLimits> | undefined
  /**
   * On shutdown, how long the server keeps serving with `/readyz` answering 503 before it stops
   * accepting (`PETSTORE_DRAIN_DELAY_MS`, default 0), so load balancers stop sending first.
   */
  readonly drainDelayMillis?: number | undefined
  /** Logs (`PETSTORE_LOG_FORMAT`, `PETSTORE_LOG_LEVEL`, `PETSTORE_ACCESS_LOG`); absent: the format the terminal suggests, level info, no access log. */
  readonly log?: LogConfig | undefined
  /** `PETSTORE_TRACING`: `otlp` exports a span per request over OTLP/HTTP (see docs/operations.md); default `off`. */
  readonly tracing?: "off" | "otlp" | undefined
  /** Collect metrics and serve them at `/metrics` (`PETSTORE_METRICS`, default true; absent in code: true). */
  readonly metrics?: boolean | undefined
  /** Also serve the metrics, without a token, on this address (`PETSTORE_METRICS_ADDRESS=host:port`). */
  readonly metricsAddress?: { readonly host: string; readonly port: number } | undefined
  /** Webhook delivery (`PETSTORE_WEBHOOK_*`, see `WebhookSettings`); absent in code: the defaults. */
  readonly webhooks?: WebhookSettings.WebhookSettings | undefined
  /**
   * Usage per account (`PETSTORE_USAGE=off` turns counting off: `false`), flushed every
   * `PETSTORE_USAGE_FLUSH_SECONDS` (default 5), hourly buckets kept `PETSTORE_USAGE_HOURLY_RETENTION_DAYS`
   * (90), daily ones `PETSTORE_USAGE_DAILY_RETENTION_DAYS` (396, 13 months). Absent: counted, with the defaults.
   */
  readonly usage?: false | Partial<Usage.UsageOptions> | undefined
  /**
   * The operator console at `/console` when the admin API is on (`PETSTORE_CONSOLE=false` turns it
   * off: `false`), its sessions lasting `PETSTORE_CONSOLE_SESSION_HOURS` (default 12). Absent: on, with the default.
   */
  readonly console?: false | { readonly sessionHours: number } | undefined
  /** How long `Idempotency-Key` answers are kept, in ms (`PETSTORE_IDEMPOTENCY_TTL`, default and least 24 h). */
  readonly idempotencyTtlMillis?: number | undefined
}

/** The log levels, lowest first: `PETSTORE_LOG_LEVEL` and `petstore serve --log-level` take these. */
export const LOG_LEVELS = ["debug", "info", "warning", "error", "none"] as const

/** How the server logs. */
export interface LogConfig {
  /** `json`: one object per line; `text`: for people. Absent: text on a terminal, json otherwise. */
  readonly format: "json" | "text" | undefined
  readonly level: (typeof LOG_LEVELS)[number]
  /** One line per request (`PETSTORE_ACCESS_LOG`, default true). */
  readonly accessLog: boolean
}

/** The rate limiter on Redis: where it is, and what a Redis outage does (`open`: limit in memory; `closed`: 503). */
export interface RedisConfig {
  /** `PETSTORE_REDIS_URL`; unset when the master is found through Sentinel. */
  readonly url?: Redacted.Redacted<string> | undefined
  /** Longest wait for Redis's answer to a decision (`PETSTORE_REDIS_TIMEOUT_MS`, default 250). */
  readonly timeoutMillis?: number | undefined
  /** `PETSTORE_REDIS_SENTINELS` and `PETSTORE_REDIS_SENTINEL_NAME`: the master behind these sentinels. */
  readonly sentinel?: SentinelConfig | undefined
  readonly failure: "open" | "closed"
  /** Put before every key (`PETSTORE_REDIS_PREFIX`, default `petstore:`). */
  readonly prefix: string
  /** `PETSTORE_REDIS_URL` names one node of a Redis Cluster (`PETSTORE_REDIS_CLUSTER=true`; default false). */
  readonly cluster?: boolean | undefined
}

/** Redis behind Sentinel: the sentinels to ask (`host:port` each) and the name of the master they watch. */
export interface SentinelConfig {
  readonly nodes: ReadonlyArray<{ readonly host: string; readonly port: number }>
  readonly name: string
}
