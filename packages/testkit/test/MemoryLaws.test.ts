import { AccountStore, LimiterStateStore, MessageStore, PetRepository } from "@petstore/core"
import {
  accountStoreLaws,
  limiterStateStoreLaws,
  messageStoreLaws,
  petRepositoryLaws,
  serviceLaws
} from "../src/index.js"

petRepositoryLaws("memory", PetRepository.PetRepository.layerMemory)
accountStoreLaws("memory", AccountStore.AccountStore.layerMemory)
messageStoreLaws("memory", MessageStore.MessageStore.layerMemory)
serviceLaws("memory", {
  pets: PetRepository.PetRepository.layerMemory,
  accounts: AccountStore.AccountStore.layerMemory,
  messages: MessageStore.MessageStore.layerMemory
})
limiterStateStoreLaws("memory", LimiterStateStore.LimiterStateStore.layerMemory)
