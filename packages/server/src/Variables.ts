/**
 * Every environment variable the server reads, with its default and meaning: the one table that
 * `petstore serve --help` prints (and that a test holds to the configuration itself: every variable
 * the configuration reads is here, and each default here is the one it applies).
 */

export interface Variable {
  readonly name: string
  /** The value the configuration takes when the variable is unset; `null`: none (the feature is off). */
  readonly default: string | null
  /** The default is described in words, or is the default of the module the value goes to (`Connections.defaults`), not a value the configuration sets. */
  readonly derived?: true | undefined
  readonly meaning: string
}

/** @category configuration */
export const VARIABLES: ReadonlyArray<Variable> = [
  { name: "PORT", default: "8080", meaning: "TCP port." },
  { name: "HOST", default: "127.0.0.1", meaning: "Address to listen on (0.0.0.0 for all interfaces)." },
  { name: "PETSTORE_ADMIN_TOKEN", default: null, meaning: "Enables the admin API under /admin/v1 (at least 16 characters: letters, digits and -._~+/, = only at the end). Unset: the admin API answers 404 and an empty store gets a demo account." },
  { name: "PETSTORE_PUBLIC_URL", default: "http://HOST:PORT/v1", derived: true, meaning: "Production base URL, listed under servers in the OpenAPI document." },
  { name: "PETSTORE_STAGING_URL", default: null, meaning: "Staging base URL, listed under servers." },
  { name: "PETSTORE_ENVIRONMENT", default: "production", meaning: "production issues psk_live_ keys, staging issues psk_test_ keys." },
  { name: "PETSTORE_QUICKSTART_BASE_PATH", default: "/v1", meaning: "Base path of the message-submission example (/messages)." },
  { name: "PETSTORE_DATABASE", default: "./data/petstore.db", meaning: "The SQLite file that holds everything (created with its folder); :memory: keeps it in memory. A postgres:// or postgresql:// URL selects PostgreSQL instead (credentials and TLS parameters in the URL; the password is never printed)." },
  { name: "PETSTORE_DATABASE_POOL_SIZE", default: "10", meaning: "PostgreSQL only: most connections one instance opens." },
  { name: "PETSTORE_DATABASE_TIMEOUT_MS", default: "4000 on PostgreSQL", derived: true, meaning: "PostgreSQL only: longest a request waits for the database before it answers 503." },
  { name: "PETSTORE_REDIS_URL", default: null, meaning: "redis://\u2026 keeps the rate limiter's state in Redis, shared by every instance (any store). Unset: in each process's memory." },
  { name: "PETSTORE_REDIS_PREFIX", default: "petstore:", meaning: "Put before every Redis key." },
  { name: "PETSTORE_REDIS_FAILURE", default: "open", meaning: "While Redis is away: open limits in each process's memory, closed answers 503." },
  { name: "PETSTORE_REDIS_CLUSTER", default: "false", meaning: "true: PETSTORE_REDIS_URL names one node of a Redis Cluster (see docs/scale-out.md)." },
  { name: "PETSTORE_REDIS_TIMEOUT_MS", default: "250", meaning: "Longest wait (10 to 10000 ms) for Redis's answer to a rate-limit decision; past it the decision is an outage (PETSTORE_REDIS_FAILURE)." },
  { name: "PETSTORE_REDIS_SENTINELS", default: null, meaning: "host:port,host:port\u2026 of Redis Sentinels: the limiter uses the master they name and follows a failover (instead of PETSTORE_REDIS_URL; see docs/scale-out.md)." },
  { name: "PETSTORE_REDIS_SENTINEL_NAME", default: "mymaster", meaning: "The master's name in the sentinels' configuration (sentinel monitor <name> \u2026)." },
  { name: "PETSTORE_STORE", default: "sqlite", meaning: "sqlite: the store PETSTORE_DATABASE names (a SQLite file, or PostgreSQL by its URL); memory: everything in process memory (nothing survives a restart; PETSTORE_DATABASE must then be unset)." },
  { name: "PETSTORE_BAN_GRACE_MS", default: "250", meaning: "After the first 429 of a wait, how long (0 to 1000 ms) refused requests do not count toward a ban, so requests sent together before the client could read a 429 never ban it." },
  { name: "PETSTORE_IDEMPOTENCY_TTL", default: "24h", meaning: "How long the answer of a create sent with an Idempotency-Key is kept and replayed: seconds, or a whole number with s, m, h or d; at least 24 hours." },
  { name: "PETSTORE_MAX_CONNECTIONS", default: "10000 (fewer when the process may open fewer files)", derived: true, meaning: "Connections held at once (lower when the process may open fewer files); past it a new connection gets 503 unavailable. See docs/reliability.md." },
  { name: "PETSTORE_PIPELINE_DEPTH", default: "16", derived: true, meaning: "Requests of one connection answered at once; further pipelined requests wait (the server stops reading from the connection)." },
  { name: "PETSTORE_CONNECTION_BUFFER_BYTES", default: "65536", derived: true, meaning: "Bytes of one connection's answers that may wait for the client to read them before no new request of it starts." },
  { name: "PETSTORE_DRAIN_DELAY_MS", default: "0", meaning: "On SIGTERM, how long (0 to 300000 ms) the server keeps serving with /readyz answering 503 before it stops accepting, so load balancers stop sending first. See docs/operations.md." },
  { name: "PETSTORE_TRUST_PROXY", default: "false", meaning: "true or a number of proxies: the client address for failed-authentication limits is then taken from X-Forwarded-For." },
  { name: "PETSTORE_IPV6_SUBNET", default: "64", meaning: "IPv6 clients are limited per network of this prefix length (32 to 128) for failed authentication and failed admin tokens; 128: per address." },
  { name: "PETSTORE_LOG_FORMAT", default: "text on a terminal, else json", derived: true, meaning: "json: one JSON object per line in pino's shape (level, time, pid, hostname, msg, then facts such as requestId); text: for people. See docs/operations.md." },
  { name: "PETSTORE_LOG_LEVEL", default: "info", meaning: "debug, info, warning, error or none: lines below it are not written (also --log-level)." },
  { name: "PETSTORE_ACCESS_LOG", default: "true", meaning: "One line per request (method, path, route template, status, client address, duration, account, request id); false turns it off." },
  { name: "PETSTORE_TRACING", default: "off", meaning: "otlp exports a span per request over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318); see docs/operations.md." },
  { name: "PETSTORE_METRICS", default: "true", meaning: "Collect metrics and serve them in Prometheus text at GET /metrics to the admin token (404 without PETSTORE_ADMIN_TOKEN); false collects nothing. See docs/operations.md." },
  { name: "PETSTORE_METRICS_ADDRESS", default: null, meaning: "host:port (such as 127.0.0.1:9464): also serve /metrics there, without a token, for a scraper on a private network." },
  { name: "PETSTORE_USAGE", default: "on", meaning: "Count every decided request per account, key and hour (GET /v1/usage, the admin API, petstore usage); off counts nothing (the endpoints answer 404)." },
  { name: "PETSTORE_USAGE_FLUSH_SECONDS", default: "5", meaning: "How often (0.01 to 3600 s) each instance writes its usage counts to the store; also on shutdown. A kill -9 loses at most this interval's counts." },
  { name: "PETSTORE_USAGE_HOURLY_RETENTION_DAYS", default: "90", meaning: "How long hourly usage buckets are kept (1 to 3650 days)." },
  { name: "PETSTORE_USAGE_DAILY_RETENTION_DAYS", default: "396", meaning: "How long daily usage buckets are kept (13 months; 1 to 3650 days)." },
  { name: "PETSTORE_CONSOLE", default: "true", meaning: "The operator console at /console, served with the admin API (404 without PETSTORE_ADMIN_TOKEN); false turns it off. See docs/console.md." },
  { name: "PETSTORE_CONSOLE_SESSION_HOURS", default: "12", meaning: "How long a console session lasts after sign-in (0.01 to 720 hours); sign-out ends it sooner, on every instance." },
  { name: "PETSTORE_WEBHOOK_RETRY_DELAYS", default: "5,300,1800,7200,18000,36000,36000", meaning: "Seconds before each retry of a webhook delivery, comma-separated; then the message is failed. See docs/webhooks.md." },
  { name: "PETSTORE_WEBHOOK_ALLOW_PRIVATE", default: "false", meaning: "true allows webhook endpoints on http and on private or loopback addresses (tests, private networks)." },
  { name: "PETSTORE_WEBHOOK_TIMEOUT_MS", default: "15000", meaning: "Each delivery attempt's deadline (10 to 120000 ms)." },
  { name: "PETSTORE_WEBHOOK_DISABLE_AFTER", default: "432000", meaning: "Seconds an endpoint may fail without a break before it is disabled (5 days)." },
  { name: "PETSTORE_WEBHOOK_WORKERS", default: "32", meaning: "Deliveries in progress at once per instance." },
  { name: "PETSTORE_WEBHOOK_ENDPOINT_CONCURRENCY", default: "16", meaning: "Of those, at most this many to one endpoint." },
  { name: "PETSTORE_WEBHOOK_SECRET_KEY", default: null, meaning: "32 bytes (64 hex digits or base64) that seal webhook signing secrets at rest with AES-256-GCM; unset, they are stored in clear. See docs/webhooks.md." }
]

/** The table as lines for a terminal: the name and default, the meaning indented below. */
export const describe = (variables: ReadonlyArray<Variable> = VARIABLES): string =>
  variables.map((v) => `${v.name} (default: ${v.default ?? "unset"})\n    ${v.meaning}`).join("\n")
