/**
 * The core services over a store's ports, as every registration builds them: the stores observed
 * (see `ServerMetrics.observeStores`), the rate limiter in process memory or on Redis, the default
 * message processor. Kept apart from the registrations so each says only what is its own.
 */
import {
  BanPolicy,
  LimiterPersistence,
  type LimiterStateStore,
  Petstore,
  SecureRandom,
  Usage,
  UsageStore,
  WebhookDelivery,
  WebhookEndpoint,
  Webhooks,
  WebhookSecretSealing, Layers } from "@petstore/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { ServerConfig } from "./ServerConfig.js"
import * as ServerMetrics from "./ServerMetrics.js"
import { adapter, layerFrom } from "./StoreRegistration.js"
import { urlProblem } from "./WebhookAddress.js"
import * as WebhookClient from "./WebhookClient.js"
import * as WebhookSettings from "./WebhookSettings.js"

/** The rate limiter on Redis (@redis/client), loaded only when `PETSTORE_REDIS_URL` or `PETSTORE_REDIS_SENTINELS` is set. */
const Redis = adapter(() => import("@petstore/redis"))

/**
 * The options of the core services: the key environment, and the rate limiter (with the configured
 * ban grace) on Redis when `PETSTORE_REDIS_URL` is set (shared by every instance), else in this
 * process's memory.
 */
const petstoreOptions = (config: ServerConfig): Petstore.PetstoreOptions => {
  const limiter = { ban: { ...BanPolicy.DEFAULT_OPTIONS, graceMillis: config.banGraceMillis } }
  const redis = config.redis
  return {
    environment: config.environment,
    rateLimiter: limiter,
    idempotency: config.idempotencyTtlMillis === undefined ? {} : { ttlMillis: config.idempotencyTtlMillis },
    rateLimiterLayer: redis === undefined ? undefined : layerFrom(Redis, (module) =>
      module.layer({
        // With Sentinel there is no URL: the sentinels name the master.
        url: redis.url === undefined ? "" : Redacted.value(redis.url),
        sentinel: redis.sentinel,
        failure: redis.failure,
        prefix: redis.prefix,
        cluster: redis.cluster,
        commandTimeoutMillis: redis.timeoutMillis,
        limiter
      })),
    messageQueue: WebhookSettings.queueOptions(WebhookSettings.of(config))
  }
}

/**
 * Webhook delivery as the message processor (through the guarded undici client), and its admin
 * service, over the stores' webhook ports. An account without an endpoint keeps its messages
 * recorded only, as before.
 */
const webhooks = <A, E, R>(config: ServerConfig, services: Layer.Layer<A, E, R>) => {
  const settings = WebhookSettings.of(config)
  const processor = WebhookDelivery.layer({
    attemptTimeoutMillis: settings.timeoutMillis,
    disableAfterMillis: settings.disableAfterMillis,
    maxInFlightPerEndpoint: settings.maxInFlightPerEndpoint
  }).pipe(Layer.provide(WebhookClient.layer({
    allowPrivate: settings.allowPrivate,
    timeoutMillis: settings.timeoutMillis,
    // As many connections to one host as there are workers: accounts whose endpoints share a host
    // (a webhook relay) must not wait behind one of them that hangs; each account's cap bounds its own.
    connectionsPerOrigin: settings.workers
  })))
  const admin = Webhooks.Webhooks.layer({ urlProblem: (url) => urlProblem(url, settings.allowPrivate) })
  return Layer.merge(services, admin).pipe(Layer.provide(processor))
}

/**
 * Usage per account over the store's `UsageStore`, when the store has one and counting is on
 * (`PETSTORE_USAGE`). The application and the commands find it when it is there
 * (`Effect.serviceOption`): a store without usage counts serves without it.
 */
const usage = (config: ServerConfig): Layer.Layer<never> => {
  const options = config.usage
  return options === false ? Layer.empty : Layer.unwrap(Effect.map(
    Effect.serviceOption(UsageStore.UsageStore),
    Option.match({
      onNone: () => Layer.empty,
      onSome: (store) =>
        Usage.Usage.layer(options ?? {}).pipe(
          Layer.provide(Layer.succeed(UsageStore.UsageStore, store)),
          Layer.provide(SecureRandom.SecureRandom.Live)
        ) as Layer.Layer<never>
    })
  ))
}

/**
 * `stores` with the webhook signing secrets sealed at rest (AES-256-GCM) when
 * `PETSTORE_WEBHOOK_SECRET_KEY` is set: whatever the store, it only ever holds them sealed. Without a
 * key, secrets are stored in clear and one found sealed is read as unreadable (it says so; it never
 * signs as if its sealed text were the secret).
 */
const sealSecrets = <A, E, R>(config: ServerConfig, stores: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> => {
  const key = WebhookSettings.of(config).secretKey
  return Layers.map(stores, (context) =>
    Option.match(Context.getOption(context as Context.Context<unknown>, WebhookEndpoint.WebhookEndpointStore), {
      onNone: () => context,
      onSome: (store) =>
        Context.add(
          context,
          WebhookEndpoint.WebhookEndpointStore,
          WebhookSecretSealing.sealedStore(store, key === undefined ? undefined : Redacted.value(key))
        ) as Context.Context<A>
    }))
}

/** The core services over `stores`, kept in process memory, with webhook delivery as the message processor. */
export const inMemory = <A, E>(
  config: ServerConfig,
  stores: Layer.Layer<A | Petstore.Stores | Petstore.WebhookStores, E, SecureRandom.SecureRandom>
): Layer.Layer<Petstore.Services | Webhooks.Webhooks | A, unknown> =>
  webhooks(config, Petstore.layer(petstoreOptions(config))).pipe(
    Layer.merge(usage(config)),
    Layer.provideMerge(ServerMetrics.observeStores(config, sealSecrets(config, stores))),
    Layer.provide(SecureRandom.SecureRandom.Live)
  )

/**
 * The core services over durable `stores`, the limiter's daily counts and bans written behind,
 * with webhook delivery as the message processor.
 */
export const durable = <A, E>(
  config: ServerConfig,
  stores: Layer.Layer<A | Petstore.Stores | Petstore.WebhookStores | LimiterStateStore.LimiterStateStore, E>
): Layer.Layer<Petstore.Services | Webhooks.Webhooks | A, unknown> =>
  LimiterPersistence.layer().pipe(
    Layer.provideMerge(webhooks(config, Petstore.layer(petstoreOptions(config))).pipe(Layer.provide(SecureRandom.SecureRandom.Live))),
    Layer.merge(usage(config)),
    Layer.provideMerge(ServerMetrics.observeStores(config, sealSecrets(config, stores)))
  )
