import { AccountStore, LimiterStateStore, MessageStore, PetRepository, RateLimiter, WebhookAttempt, WebhookEndpoint } from "@petstore/core"
import { Effect, Layer } from "effect"
import {
  accountStoreLaws,
  limiterStateStoreLaws,
  rateLimiterLaws,
  messageStoreLaws,
  petRepositoryLaws,
  serviceLaws,
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
rateLimiterLaws("memory", (options) => Effect.map(Effect.clock, (clock) => RateLimiter.makeMemory(options, clock)))
