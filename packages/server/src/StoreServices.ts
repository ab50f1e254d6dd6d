/**
 * The core services over a store's ports, as every registration builds them: the stores observed
 * (see `ServerMetrics.observeStores`), the rate limiter in process memory or on Redis, the default
 * message processor. Kept apart from the registrations so each says only what is its own.
 *
 * @since 1.0.0
 */
import {
  BanPolicy,
  LimiterPersistence,
  type LimiterStateStore,
  MessageProcessor,
  Petstore,
  SecureRandom
} from "@petstore/core"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type { ServerConfig } from "./Config.js"
import * as ServerMetrics from "./ServerMetrics.js"
import { adapter, layerFrom } from "./StoreRegistration.js"

/** The rate limiter on Redis (@redis/client), loaded only when `PETSTORE_REDIS_URL` is set. */
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
      module.layer({ url: Redacted.value(redis.url), failure: redis.failure, prefix: redis.prefix, limiter }))
  }
}

/** The core services over `stores`, kept in process memory, with the default message processor. */
export const inMemory = <A, E>(
  config: ServerConfig,
  stores: Layer.Layer<A | Petstore.Stores, E, SecureRandom.SecureRandom>
): Layer.Layer<Petstore.Services | A, unknown> =>
  Petstore.layer(petstoreOptions(config)).pipe(
    Layer.provideMerge(ServerMetrics.observeStores(config, stores)),
    Layer.provide(SecureRandom.SecureRandom.Live),
    Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
  )

/**
 * The core services over durable `stores`, the limiter's daily counts and bans written behind,
 * with the default message processor.
 */
export const durable = <A, E>(
  config: ServerConfig,
  stores: Layer.Layer<A | Petstore.Stores | LimiterStateStore.LimiterStateStore, E>
): Layer.Layer<Petstore.Services | A, unknown> =>
  LimiterPersistence.layer().pipe(
    Layer.provideMerge(Petstore.layer(petstoreOptions(config)).pipe(Layer.provide(SecureRandom.SecureRandom.Live))),
    Layer.provideMerge(ServerMetrics.observeStores(config, stores)),
    Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
  )
