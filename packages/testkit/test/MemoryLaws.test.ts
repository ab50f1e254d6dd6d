import * as Clock from "effect/Clock"
import { AccountStore, ConsoleSessionStore, IdempotencyStore, LimiterStateStore, MessageStore, PetRepository, RateLimiter, Readiness, UsageStore, WebhookAttempt, WebhookEndpoint } from "@petstore/core"
import { Effect, Layer } from "effect"
import {
  accountStoreLaws,
  consoleSessionStoreLaws,
  idempotencyLaws,
  limiterPersistenceLaws,
  limiterStateStoreLaws,
  readinessLaws,
  rateLimiterLaws,
  messageStoreLaws,
  petRepositoryLaws,
  serviceLaws,
  usageStoreLaws,
  webhookStoreLaws
} from "../src/laws/index.js"

petRepositoryLaws("memory", PetRepository.PetRepository.layerMemory)
accountStoreLaws("memory", AccountStore.AccountStore.layerMemory)
messageStoreLaws("memory", MessageStore.MessageStore.layerMemory)
webhookStoreLaws("memory", Layer.merge(WebhookEndpoint.WebhookEndpointStore.layerMemory, WebhookAttempt.WebhookAttemptStore.layerMemory))
serviceLaws("memory", {
  pets: PetRepository.PetRepository.layerMemory,
  accounts: AccountStore.AccountStore.layerMemory,
  messages: MessageStore.MessageStore.layerMemory
})
limiterStateStoreLaws("memory", LimiterStateStore.LimiterStateStore.layerMemory)
idempotencyLaws(
  "memory",
  IdempotencyStore.IdempotencyStore.layerMemory.pipe(
    Layer.provideMerge(Layer.merge(PetRepository.PetRepository.layerMemory, MessageStore.MessageStore.layerMemory))
  )
)
rateLimiterLaws("memory", (options) => Effect.map(Clock.Clock, (clock) => RateLimiter.makeMemory(options, clock)))
// The limiter written behind to a state store in memory that outlives each "process".
limiterPersistenceLaws("memory", {
  database: Effect.sync(LimiterStateStore.makeMemory),
  stateStore: (store) => Layer.succeed(LimiterStateStore.LimiterStateStore, store)
})
// The memory stores are always up: nothing to stop.
readinessLaws("memory", {
  port: "store",
  dependency: Effect.succeed({ layer: Readiness.StoreReadiness.layerAlwaysUp, outage: () => ({ begin: Effect.void, end: Effect.void }), secrets: [] }),
  away: "down",
  outages: []
})
usageStoreLaws("memory", UsageStore.UsageStore.layerMemory)
consoleSessionStoreLaws("memory", ConsoleSessionStore.ConsoleSessionStore.layerMemory)
