import { AccountStore, IdempotencyStore, LimiterStateStore, MessageStore, PetRepository, RateLimiter } from "@petstore/core"
import { Effect, Layer } from "effect"
import {
  accountStoreLaws,
  idempotencyLaws,
  limiterStateStoreLaws,
  rateLimiterLaws,
  messageStoreLaws,
  petRepositoryLaws,
  serviceLaws
} from "../src/laws/index.js"

petRepositoryLaws("memory", PetRepository.PetRepository.layerMemory)
accountStoreLaws("memory", AccountStore.AccountStore.layerMemory)
messageStoreLaws("memory", MessageStore.MessageStore.layerMemory)
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
rateLimiterLaws("memory", (options) => Effect.map(Effect.clock, (clock) => RateLimiter.makeMemory(options, clock)))
