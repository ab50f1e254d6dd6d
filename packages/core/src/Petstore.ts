/**
 * All core services wired together over whatever stores are provided.
 *
 * @since 1.0.0
 */
import * as Layer from "effect/Layer"
import { Accounts } from "./Accounts.js"
import { AccountStore } from "./AccountStore.js"
import type { KeyEnvironment } from "./ApiKey.js"
import { Idempotency, type IdempotencyOptions } from "./Idempotency.js"
import { IdempotencyStore } from "./IdempotencyStore.js"
import { MessageProcessor } from "./MessageProcessor.js"
import { MessageQueue, type MessageQueueOptions } from "./MessageQueue.js"
import { MessageStore } from "./MessageStore.js"
import { CursorSigner } from "./PageCursor.js"
import { PetRepository } from "./PetRepository.js"
import { Pets, type PetsOptions } from "./Pets.js"
import { RateLimiter, type RateLimiterOptions } from "./RateLimiter.js"
import { StoreReadiness } from "./Readiness.js"
import type { WebhookAttemptStore } from "./WebhookAttempt.js"
import type { WebhookEndpointStore } from "./WebhookEndpoint.js"
import { SecureRandom } from "./SecureRandom.js"

/** The options of every service of the pet store. */
export interface PetstoreOptions {
  readonly environment?: KeyEnvironment | undefined
  readonly rateLimiter?: Partial<RateLimiterOptions> | undefined
  /**
   * Another rate limiter (Redis, shared by every instance) instead of the in-memory one; a layer that
   * also provides `LimiterReadiness` has it reach the readiness answer.
   */
  readonly rateLimiterLayer?: Layer.Layer<RateLimiter> | undefined
  readonly messageQueue?: Partial<MessageQueueOptions> | undefined
  /** The pets service's page cache (its byte budget). */
  readonly pets?: PetsOptions | undefined
  /** How long `Idempotency-Key` answers are kept, and how often expired ones are swept. */
  readonly idempotency?: Partial<IdempotencyOptions> | undefined
}

/** The services of the interface. */
export type Services = Accounts | Pets | MessageQueue | RateLimiter | Idempotency

/** The stores of webhook delivery (endpoints and the attempt log), which an adapter provides too. */
export type WebhookStores = WebhookEndpointStore | WebhookAttemptStore

/** The stores an adapter provides. */
export type Stores = PetRepository | AccountStore | MessageStore | CursorSigner | IdempotencyStore

/**
 * The services over stores from elsewhere (SQLite, PostgreSQL ...). The message processor is the
 * embedding application's; `MessageProcessor.layerRecordOnly` is the default.
 */
export const layer = (
  options: PetstoreOptions = {}
): Layer.Layer<Services, never, Stores | MessageProcessor | SecureRandom> =>
  Idempotency.layer(options.idempotency).pipe(Layer.provideMerge(Layer.mergeAll(
    Accounts.layer({ environment: options.environment ?? "production" }),
    Pets.layerWith(options.pets ?? {}),
    MessageQueue.layer(options.messageQueue),
    options.rateLimiterLayer ?? RateLimiter.layerMemory(options.rateLimiter)
  )))

/**
 * Everything in process memory: for tests, embedding and trying things out (nothing survives a restart).
 *
 * @example
 * ```ts
 * import { MessageProcessor, Pet, Pets, Petstore } from "@petstore/core"
 * import { Effect, Layer } from "effect"
 *
 * const store = Petstore.layerMemory().pipe(Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly))
 * const pet = await Effect.runPromise(
 *   Effect.flatMap(Pets.Pets, (pets) => pets.create({ name: "Rex", categoryId: Pet.CategoryId.make(1), status: "available" })).pipe(Effect.provide(store))
 * )
 * console.log(pet.id, pet.name)
 * ```
 */
export const layerMemory = (
  options: PetstoreOptions = {}
): Layer.Layer<Services | Stores | StoreReadiness, never, MessageProcessor> =>
  layer(options).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        IdempotencyStore.layerMemory,
        AccountStore.layerMemory,
        CursorSigner.random,
        StoreReadiness.layerAlwaysUp
      ).pipe(Layer.provideMerge(Layer.merge(PetRepository.layerMemory, MessageStore.layerMemory)))
    ),
    Layer.provide(SecureRandom.Live)
  )
