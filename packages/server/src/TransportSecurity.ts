/**
 * Whether the configured PostgreSQL and Redis connections cross a network in clear, decided from
 * their URLs (and `PGSSLMODE`, which node-postgres reads when the URL says nothing of TLS) before
 * anything connects: the server warns at start, naming the variable and the host, never a password.
 * A connection to this machine (a loopback address, `localhost`, a Unix socket) needs no TLS.
 */
import * as Redacted from "effect/Redacted"
import { BlockList, isIP } from "node:net"
import type { SentinelConfig, ServerConfig } from "./ServerConfig.js"
import type { PostgresStore } from "./stores/postgres.js"

const LOOPBACK = new BlockList()
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4")
LOOPBACK.addAddress("::1", "ipv6")

/** Whether `host` (a URL's hostname, brackets allowed) names this machine through loopback. */
export const isLoopback = (host: string): boolean => {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1")
  if (name === "localhost" || name.endsWith(".localhost")) return true
  const family = isIP(name)
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is checked against the IPv4 range.
  return family !== 0 && LOOPBACK.check(name, family === 4 ? "ipv4" : "ipv6")
}

/**
 * Whether node-postgres (pg-connection-string 2.x) connects to `url` without TLS: `sslmode=disable`,
 * `ssl=0`, or nothing about TLS in the URL and `PGSSLMODE` unset or `disable`.
 */
const postgresInClear = (params: URLSearchParams, env: Readonly<Record<string, string | undefined>>): boolean => {
  const mode = params.get("sslmode")
  if (mode !== null) return mode === "disable"
  if (["sslcert", "sslkey", "sslrootcert"].some((name) => params.has(name))) return false
  const ssl = params.get("ssl")
  if (ssl !== null) return ssl === "0" || ssl === "false"
  if (params.get("sslnegotiation") === "direct") return false
  const envMode = env.PGSSLMODE
  return envMode === undefined || !["prefer", "require", "verify-ca", "verify-full", "no-verify"].includes(envMode)
}

/** The warning for a PostgreSQL URL that crosses a network in clear, or `undefined`. */
export const postgresWarning = (url: string, env: Readonly<Record<string, string | undefined>>): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  // A `host` parameter wins over the URL's host, as in node-postgres; a path there is a Unix socket.
  const host = parsed.searchParams.get("host") ?? decodeURIComponent(parsed.hostname)
  if (host === "" || host.startsWith("/") || isLoopback(host)) return undefined
  if (!postgresInClear(parsed.searchParams, env)) return undefined
  return `PETSTORE_DATABASE connects to PostgreSQL on ${host} without TLS (no sslmode, or sslmode=disable): ` +
    "its password and every row cross the network in clear; add sslmode=verify-full (with sslrootcert=… for a private CA)"
}

/** The warning for a Redis URL that crosses a network in clear (`redis://`, not `rediss://`), or `undefined`. */
export const redisWarning = (url: string): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (parsed.protocol !== "redis:" || isLoopback(parsed.hostname)) return undefined
  return `PETSTORE_REDIS_URL connects to Redis on ${parsed.hostname} without TLS (redis://): ` +
    "its password and the rate limits cross the network in clear; use a rediss:// URL"
}

/** The warning for sentinels on another machine (the limiter's traffic through Sentinel is in clear), or `undefined`. */
export const sentinelWarning = (sentinel: SentinelConfig): string | undefined => {
  const remote = sentinel.nodes.filter((n) => !isLoopback(n.host)).map((n) => n.host)
  if (remote.length === 0) return undefined
  return `PETSTORE_REDIS_SENTINELS names sentinels on ${remote.join(", ")}: the sentinels and the master they name are reached ` +
    "without TLS, so the rate limits cross the network in clear; keep them on a private network"
}

/** The warnings of `config` (given the process's environment), one sentence each. */
export const warnings = (config: ServerConfig, env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const found: Array<string | undefined> = []
  if (config.store?._tag === "postgres") found.push(postgresWarning(Redacted.value((config.store as PostgresStore).url), env))
  if (config.redis?.url !== undefined) found.push(redisWarning(Redacted.value(config.redis.url)))
  if (config.redis?.sentinel !== undefined) found.push(sentinelWarning(config.redis.sentinel))
  return found.filter((warning): warning is string => warning !== undefined)
}
