/**
 * The memory store's registration: everything in process memory, nothing kept when the process
 * ends (`PETSTORE_STORE=memory`). Always ready; no schema to migrate.
 */
import {
  AccountStore,
  ConsoleSessionStore,
  IdempotencyStore,
  MessageStore,
  PageCursor,
  type Petstore,
  PetRepository,
  Readiness,
  type SecureRandom,
  UsageStore,
  WebhookAttempt,
  WebhookEndpoint
} from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { StoreRegistration } from "../StoreRegistration.js"
import * as StoreServices from "../StoreServices.js"

/** The memory store's configuration: nothing to configure. */
export interface MemoryStore {
  readonly _tag: "memory"
}

/** The store ports in process memory (a store of another kind that keeps its data there starts from these). */
export const ports: Layer.Layer<Petstore.Stores | Petstore.WebhookStores | ConsoleSessionStore.ConsoleSessionStore, never, SecureRandom.SecureRandom> = Layer.mergeAll(
  IdempotencyStore.IdempotencyStore.layerMemory,
  WebhookEndpoint.WebhookEndpointStore.layerMemory,
  WebhookAttempt.WebhookAttemptStore.layerMemory,
  AccountStore.AccountStore.layerMemory,
  PageCursor.CursorSigner.random,
  UsageStore.UsageStore.layerMemory,
  ConsoleSessionStore.ConsoleSessionStore.layerMemory
).pipe(Layer.provideMerge(Layer.merge(PetRepository.PetRepository.layerMemory, MessageStore.MessageStore.layerMemory)))

/** @category registrations */
export const memory: StoreRegistration<MemoryStore> = {
  tag: "memory",
  selectedBy: { store: "memory" },
  configure: () => ({ _tag: "memory" }),
  describe: () => "process memory (nothing is kept)",
  services: (config) => StoreServices.inMemory(config, Layer.merge(ports, Readiness.StoreReadiness.layerAlwaysUp)),
  accounts: () => AccountStore.AccountStore.layerMemory,
  migrate: () => Effect.succeed(["the in-memory store has no schema: nothing to migrate"]),
  pendingMigrations: () => Effect.succeed({ summary: "the in-memory store has no schema: nothing to migrate", pending: [] })
}
