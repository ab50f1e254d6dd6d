/**
 * A real server for HTTP tests: the application (`App.layer`) served by `Server.layer` over in-memory stores,
 * listening on an ephemeral port of 127.0.0.1, with the admin API enabled, and a clock the test
 * drives. Requests go through `fetch`, so every byte crosses node:http.
 *
 * The clock follows real time (so the message worker and keep-alive timers behave as in
 * production) plus an offset the test can move; it can also be frozen, which makes rate-limit
 * numbers exact. Use one server per file (`layer(TestServer.layer())`) and `TestServer.start` in
 * `it.effect` for a test that needs its own options or moves the clock.
 */
// FIXME v4: FiberRef removed
import {
  AccountStore,
  ConsoleSessionStore,
  MessageProcessor,
  type MessageQueue,
  MessageStore,
  PageCursor,
  PetRepository,
  type Pets,
  Petstore,
  type Plan,
  type RateLimiter,
  Readiness,
  SecureRandom,
  IdempotencyStore,
  Usage,
  UsageStore,
  WebhookAttempt,
  WebhookEndpoint,
  Webhooks
} from "@petstore/core"
import { Clock, Context, type Duration, Effect, Layer, Logger, LogLevel, Option, Redacted, type Scope, References } from "effect"
import { App } from "../../src/App.js"
import type * as Connections from "../../src/Connections.js"
import type * as RequestObserver from "../../src/RequestObserver.js"
import * as Server from "../../src/Server.js"
import { ServerAddress } from "../../src/Server.js"

export const ADMIN_TOKEN = "test-admin-token-0123456789"

export interface TestServerOptions {
  readonly rateLimiter?: Partial<RateLimiter.RateLimiterOptions>
  readonly messageQueue?: Partial<MessageQueue.MessageQueueOptions>
  /** The pets service's options (its page cache's byte budget). */
  readonly pets?: Pets.PetsOptions
  /** Replaces the default processor (which only records delivery). */
  readonly messageProcessor?: MessageProcessor.MessageProcessor["Service"]
  readonly quickstartBasePath?: `/${string}`
  readonly trustProxy?: number
  /** The prefix length IPv6 clients are grouped by (default the application's, 64). */
  readonly ipv6Subnet?: number
  /** `null` leaves the admin API disabled. */
  readonly adminToken?: string | null
  readonly environment?: "production" | "staging"
  /** Starts with the clock frozen at this instant (epoch ms). */
  readonly frozenAt?: number
  /** Replaces the in-memory pet store (to make it fail, for instance). */
  readonly petRepository?: PetRepository.PetRepository["Service"]
  /** Replaces the in-memory account store (one that answers only after waiting, for instance). */
  readonly accountStore?: AccountStore.AccountStore["Service"]
  /** Silences the server's logs (for tests that provoke logged errors). */
  readonly quiet?: boolean
  /** The server's bounds on slow requests (default: the production ones, 10 s and 30 s). */
  readonly timeouts?: { readonly headers: Duration.Input; readonly request: Duration.Input }
  /** The server's bounds on connections (default: the production ones). */
  readonly connections?: Partial<Connections.ConnectionLimits>
  /** Replaces the memory stores' readiness (always up), to count or fail probes. */
  readonly storeReadiness?: Readiness.StoreReadiness["Service"]
  /** The rate limiter's readiness (default: none, counted as up). */
  readonly limiterReadiness?: Readiness.LimiterReadiness["Service"]
  /** How long the server keeps serving once its scope starts closing (default 0). */
  readonly drainDelay?: Duration.Input
  /** The access log and tracing (default: both off). */
  readonly observe?: RequestObserver.ObserveOptions
  /** The only logger of the server (to read what it logs); default: Effect's. */
  readonly logger?: Logger.Logger<unknown, unknown>
  /** Log annotations of the fiber that builds the server (every line it logs carries them). */
  readonly annotations?: Record<string, unknown>
  /** Metrics served at `/metrics` to the admin token (default: none). */
  readonly metrics?: { readonly scrape: Effect.Effect<string>; readonly contentType: string }
  /** Requests for the API reference's script per minute from one address (default the application's). */
  readonly assetsPerMinute?: number
  /** Counts usage per account in memory, flushed every `flushMillis` (default: no usage counted). */
  readonly usage?: Partial<Usage.UsageOptions>
  /** The operator console (its build's directory, its sessions' hours); default: off. */
  readonly console?: { readonly directory: string; readonly sessionHours?: number | undefined }
  /** The console's session store (one shared by two servers, for instance); default: the process's memory. */
  readonly consoleSessions?: ConsoleSessionStore.ConsoleSessionStore["Service"]
  /** Webhooks over memory stores (with the memory pet and account stores), so the admin API's message reads answer; default: none. */
  readonly webhooks?: boolean
}

/**
 * Real time plus an offset, or a frozen instant. Sleeps are real: only what the service reads as
 * "now" moves.
 */
export class ControlledClock implements Clock.Clock {
  private readonly live = Clock.Clock.defaultValue()
  private offset = 0
  private frozen: number | undefined = undefined

  currentTimeMillisUnsafe(): number {
    return this.frozen ?? Date.now() + this.offset
  }
  currentTimeNanosUnsafe(): bigint {
    return BigInt(this.currentTimeMillisUnsafe()) * 1_000_000n
  }
  monotonicTimeNanosUnsafe(): bigint {
    return this.currentTimeNanosUnsafe()
  }
  readonly currentTimeMillis = Effect.sync(() => this.currentTimeMillisUnsafe())
  readonly currentTimeNanos = Effect.sync(() => this.currentTimeNanosUnsafe())
  readonly monotonicTimeNanos = Effect.sync(() => this.monotonicTimeNanosUnsafe())
  sleep(duration: Duration.Duration): Effect.Effect<void> {
    return this.live.sleep(duration)
  }

  /** Stops time at `at` (default: now). */
  freeze(at: number = this.currentTimeMillisUnsafe()): void {
    this.frozen = at
  }
  /** Lets time run again from the current instant. */
  thaw(): void {
    if (this.frozen === undefined) return
    this.offset = this.frozen - Date.now()
    this.frozen = undefined
  }
  /** Jumps to `at` (epoch ms); a frozen clock stays frozen. */
  setTime(at: number): void {
    if (this.frozen !== undefined) this.frozen = at
    else this.offset = at - Date.now()
  }
  /** Moves time forward by `millis`. */
  adjust(millis: number): void {
    this.setTime(this.currentTimeMillisUnsafe() + millis)
  }
  now(): number {
    return this.currentTimeMillisUnsafe()
  }
}

/** A response, read to the end. */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON, or `undefined` when it is empty or not JSON. */
  readonly body: any
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <key>`. */
  readonly key?: string | undefined
  /** Sent as is (wins over `key`). */
  readonly authorization?: string | undefined
  readonly headers?: Record<string, string> | undefined
  /** Encoded as JSON with `Content-Type: application/json` unless `headers` say otherwise. */
  readonly json?: unknown
  /** Sent as is, with no Content-Type unless `headers` give one (a stream is sent chunked). */
  readonly raw?: string | Uint8Array | ReadableStream<Uint8Array> | undefined
}

export interface CreatedAccount {
  readonly id: string
  readonly plan: Plan.Plan
  readonly limits: Plan.PlanLimits
  readonly key: string
  readonly keyId: string
  readonly prefix: string
}

export interface IssuedKey {
  readonly id: string
  readonly key: string
  readonly prefix: string
  readonly expiresAt: string | null
}

const readReply = async (response: Response): Promise<Reply> => {
  const text = await response.text()
  let body: unknown = undefined
  if (text.length > 0) {
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
  }
  return { status: response.status, headers: response.headers, text, body }
}

/** Fails the test with the reply when `status` is not the expected one. */
const expectStatus = (reply: Reply, status: number, what: string): Reply => {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text}`)
  return reply
}

const makeHandle = (url: string, clock: ControlledClock, adminToken: string | undefined) => {
  const request = (method: string, path: string, options: RequestOptions = {}): Effect.Effect<Reply> =>
    Effect.promise(async () => {
      const headers: Record<string, string> = {}
      if (options.key !== undefined) headers["authorization"] = `Bearer ${options.key}`
      if (options.authorization !== undefined) headers["authorization"] = options.authorization
      const init: RequestInit & { duplex?: "half" } = { method, headers, redirect: "manual" }
      if (options.json !== undefined) {
        headers["content-type"] = "application/json"
        init.body = JSON.stringify(options.json)
      } else if (options.raw !== undefined) {
        init.body = options.raw
        // a stream has no length: it is sent chunked
        if (options.raw instanceof ReadableStream) init.duplex = "half"
      }
      Object.assign(headers, options.headers)
      return readReply(await fetch(url + path, init))
    })

  const get = (path: string, key?: string) => request("GET", path, { key })
  const post = (path: string, json: unknown, key?: string) => request("POST", path, { key, json })

  const adminRequest = (method: string, path: string, json?: unknown) =>
    request(method, `/admin/v1${path}`, { key: adminToken, json })

  const admin = {
    request: adminRequest,
    createAccount: (plan: Plan.Plan = "free", limits?: Plan.PlanLimits): Effect.Effect<CreatedAccount> =>
      Effect.map(
        adminRequest("POST", "/accounts", limits === undefined ? { plan } : { plan, limits }),
        (reply) => expectStatus(reply, 201, "create account").body as CreatedAccount
      ),
    createKey: (accountId: string, expiresAt?: string): Effect.Effect<IssuedKey> =>
      Effect.map(
        adminRequest("POST", `/accounts/${accountId}/keys`, expiresAt === undefined ? {} : { expiresAt }),
        (reply) => expectStatus(reply, 201, "create key").body as IssuedKey
      ),
    listKeys: (accountId: string) => adminRequest("GET", `/accounts/${accountId}/keys`),
    rotateKey: (keyId: string, graceSeconds?: number): Effect.Effect<IssuedKey> =>
      Effect.map(
        adminRequest("POST", `/keys/${keyId}/rotate`, graceSeconds === undefined ? {} : { graceSeconds }),
        (reply) => expectStatus(reply, 201, "rotate key").body as IssuedKey
      ),
    revokeKey: (keyId: string) =>
      Effect.map(adminRequest("DELETE", `/keys/${keyId}`), (reply) => expectStatus(reply, 204, "revoke key"))
  }

  /** An enterprise account with its own numbers (small ones make limits reachable in a test). */
  const enterprise = (perMinute: number, perDay: number = 1_000_000) => admin.createAccount("enterprise", { perMinute, perDay })

  /** Creates a pet and returns it (the test fails unless the answer is 201). */
  const createPet = (key: string, pet: { readonly name: string; readonly categoryId: number; readonly status?: string }) =>
    Effect.map(post("/v1/pets", pet, key), (reply) => expectStatus(reply, 201, "create pet").body)

  return { url, clock, adminToken, request, get, post, admin, enterprise, createPet }
}

/** @category services */
export class TestServer extends Context.Service<
  TestServer,
  ReturnType<typeof makeHandle> & { readonly flushUsage: Effect.Effect<void> }
>()("test/TestServer") {
  /** Starts a server for the life of the scope. */
  static readonly start = (options: TestServerOptions = {}): Effect.Effect<TestServer["Service"], never, Scope.Scope> =>
    Effect.gen(function*() {
      const clock = new ControlledClock()
      if (options.frozenAt !== undefined) clock.freeze(options.frozenAt)
      const adminToken = options.adminToken === null ? undefined : options.adminToken ?? ADMIN_TOKEN
      const config = {
        environment: options.environment ?? "production",
        quickstartBasePath: options.quickstartBasePath ?? "/v1",
        adminToken: Option.map(Option.fromNullishOr(adminToken), Redacted.make),
        trustProxy: options.trustProxy ?? 0,
        ipv6Subnet: options.ipv6Subnet,
        servers: [{ url: "http://127.0.0.1", description: "Production" }],
        observe: options.observe,
        metrics: options.metrics,
        assetsPerMinute: options.assetsPerMinute,
        console: options.console
      } as const
      const processor = options.messageProcessor === undefined
        ? MessageProcessor.MessageProcessor.layerRecordOnly
        : Layer.succeed(MessageProcessor.MessageProcessor, options.messageProcessor)
      const petstoreOptions = {
        environment: config.environment,
        rateLimiter: options.rateLimiter,
        messageQueue: options.messageQueue,
        pets: options.pets
      }
      const usage = options.usage === undefined ? Layer.empty : Usage.Usage.layer(options.usage).pipe(
        Layer.provide(Layer.merge(UsageStore.UsageStore.layerMemory, SecureRandom.SecureRandom.Live))
      )
      const stores = options.petRepository === undefined && options.accountStore === undefined
        ? Petstore.layerMemory(petstoreOptions).pipe(Layer.provide(processor))
        : Petstore.layer(petstoreOptions).pipe(
          Layer.provideMerge(IdempotencyStore.IdempotencyStore.layerMemory),
          Layer.provide(Layer.mergeAll(
            options.petRepository === undefined
              ? PetRepository.PetRepository.layerMemory
              : Layer.succeed(PetRepository.PetRepository, options.petRepository),
            options.accountStore === undefined
              ? AccountStore.AccountStore.layerMemory
              : Layer.succeed(AccountStore.AccountStore, options.accountStore),
            MessageStore.MessageStore.layerMemory,
            PageCursor.CursorSigner.random.pipe(Layer.provide(SecureRandom.SecureRandom.Live)),
            processor,
            SecureRandom.SecureRandom.Live
          ))
        )
      // Webhooks over the memory stores (the account and message stores are theirs).
      const services = options.webhooks === true
        ? Webhooks.Webhooks.layer().pipe(
          Layer.provide(Layer.mergeAll(
            WebhookEndpoint.WebhookEndpointStore.layerMemory,
            WebhookAttempt.WebhookAttemptStore.layerMemory,
            SecureRandom.SecureRandom.Live
          )),
          Layer.provideMerge(Petstore.layerMemory(petstoreOptions).pipe(Layer.provide(processor)))
        )
        : stores
      // Everything built here (request handler, limiter, message worker) reads time from `clock`.
      const served = Server.layer({
        port: 0,
        host: "127.0.0.1",
        headersTimeout: options.timeouts?.headers,
        requestTimeout: options.timeouts?.request,
        connections: options.connections,
        drainDelay: options.drainDelay
      }).pipe(
        Layer.provideMerge(App.layer(config)),
        Layer.provideMerge(
          options.storeReadiness === undefined
            ? Layer.merge(services, usage)
            : Layer.mergeAll(services, usage, Layer.succeed(Readiness.StoreReadiness, options.storeReadiness))
        ),
        Layer.provideMerge(
          options.limiterReadiness === undefined
            ? Layer.empty
            : Layer.succeed(Readiness.LimiterReadiness, options.limiterReadiness)
        ),
        Layer.provideMerge(
          options.consoleSessions === undefined
            ? Layer.empty
            : Layer.succeed(ConsoleSessionStore.ConsoleSessionStore, options.consoleSessions)
        )
      )
      const context = yield* Layer.build(served).pipe(
        Effect.provideService(Clock.Clock, clock),
        options.quiet === true ? Effect.provideService(References.MinimumLogLevel, "None") : (self) => self,
        options.logger === undefined ? (self) => self : Effect.provideService(References.CurrentLoggers, new Set([options.logger])),
        options.annotations === undefined ? (self) => self : Effect.annotateLogs(options.annotations),
        Effect.orDie
      )
      const counted = Context.getOption(context as Context.Context<unknown>, Usage.Usage)
      return {
        ...makeHandle(Context.get(context, ServerAddress).url, clock, adminToken),
        /** Writes the usage counted so far (when the server counts usage). */
        flushUsage: Option.match(counted, { onNone: () => Effect.void, onSome: (usage) => Effect.orDie(usage.flush) })
      }
    })

  static readonly layer = (options: TestServerOptions = {}) => Layer.effect(TestServer, TestServer.start(options))
}
