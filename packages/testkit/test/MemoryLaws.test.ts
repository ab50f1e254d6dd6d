import { AccountStore, LimiterStateStore, MessageStore, PetRepository, RateLimiter, UsageStore } from "@petstore/core"
import { Effect } from "effect"
import {
  accountStoreLaws,
  limiterStateStoreLaws,
  rateLimiterLaws,
  messageStoreLaws,
  petRepositoryLaws,
  serviceLaws,
  usageStoreLaws
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
rateLimiterLaws("memory", (options) => Effect.map(Effect.clock, (clock) => RateLimiter.makeMemory(options, clock)))
usageStoreLaws("memory", UsageStore.UsageStore.layerMemory)
