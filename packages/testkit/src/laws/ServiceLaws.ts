/**
 * The service law suites together, for an adapter that provides all three stores.
 *
 * @since 1.0.0
 */
import type { Layer } from "effect"
import type { AccountStore, MessageStore, PetRepository } from "@petstore/core"
import { accountsServiceLaws } from "./AccountsLaws.js"
import type { LawSuiteOptions } from "./LawSuite.js"
import { messageQueueServiceLaws } from "./MessageQueueLaws.js"
import { petsServiceLaws } from "./PetsLaws.js"

/**
 * The stores the services run on; a suite is registered for each store given.
 *
 * @category models
 */
export interface ServiceLawStores<E1, E2, E3> {
  readonly pets?: Layer.Layer<PetRepository.PetRepository, E1> | undefined
  readonly accounts?: Layer.Layer<AccountStore.AccountStore, E2> | undefined
  readonly messages?: Layer.Layer<MessageStore.MessageStore, E3> | undefined
}

/**
 * Registers the laws of `Pets`, `Accounts` and `MessageQueue` over the given stores.
 *
 * @category law suites
 * @since 1.0.0
 */
export const serviceLaws = <E1 = never, E2 = never, E3 = never>(
  name: string,
  stores: ServiceLawStores<E1, E2, E3>,
  options?: LawSuiteOptions
): void => {
  if (stores.pets !== undefined) petsServiceLaws(name, stores.pets, options)
  if (stores.accounts !== undefined) accountsServiceLaws(name, stores.accounts, options)
  if (stores.messages !== undefined) messageQueueServiceLaws(name, stores.messages, options)
}
