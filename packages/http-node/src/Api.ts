/**
 * The public interface as one `HttpApi` value: the single source of truth for routes, request and
 * response schemas, the OpenAPI document and the typed client.
 *
 * @since 1.0.0
 */
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import type { Idempotency, MessageQueue, Pets } from "@petstore/core"
import { createMessage } from "./internal/operations/createMessage.js"
import { createPet } from "./internal/operations/createPet.js"
import { ApiKeyAuth, PUBLIC_PREFIX } from "./internal/operations/endpoint.js"
import { getMessage } from "./internal/operations/getMessage.js"
import { getPet } from "./internal/operations/getPet.js"
import { getUsage } from "./internal/operations/getUsage.js"
import { listPets } from "./internal/operations/listPets.js"
import type * as Operation from "./internal/operations/operation.js"

export { ApiKeyAuth, PUBLIC_PREFIX, ResponseHeaders } from "./internal/operations/endpoint.js"
export { NewPetBody } from "./internal/operations/createPet.js"
export { PetIdParam } from "./internal/operations/getPet.js"
export { Limit, ListPetsParams } from "./internal/operations/listPets.js"

/**
 * Every operation the public API serves, each declared and handled in its own module
 * (`internal/operations`): the application serves exactly these. A new operation is added here and
 * to its group below.
 */
export const OPERATIONS: ReadonlyArray<Operation.Operation<any, Pets.Pets | MessageQueue.MessageQueue | Idempotency.Idempotency>> = [
  listPets,
  createPet,
  getPet,
  createMessage,
  getMessage,
  getUsage
]

/** The pet operations, tag `animals`. */
export class AnimalsGroup extends HttpApiGroup.make("animals")
  .add(listPets.endpoint)
  .add(createPet.endpoint)
  .add(getPet.endpoint)
  .middleware(ApiKeyAuth)
  .prefix(PUBLIC_PREFIX)
  .annotate(OpenApi.Description, "The animals (pets) kept in the store.")
{}

/** The account's own usage, tag `usage`. */
export class UsageGroup extends HttpApiGroup.make("usage")
  .add(getUsage.endpoint)
  .middleware(ApiKeyAuth)
  .prefix(PUBLIC_PREFIX)
  .annotate(OpenApi.Description, "What the calling account used and was refused (beta).")
{}

/** The message-submission example, mounted at its own base path (default `/v1`). */
export const messagesGroup = (basePath: `/${string}` = PUBLIC_PREFIX) =>
  HttpApiGroup.make("messages")
    .add(createMessage.endpoint)
    .add(getMessage.endpoint)
    .middleware(ApiKeyAuth)
    .prefix(basePath)
    .annotate(OpenApi.Description, "The message-submission example (experimental).")

/** The public API with the message example at `quickstartBasePath`. */
export const makeApi = (quickstartBasePath: `/${string}` = PUBLIC_PREFIX) =>
  HttpApi.make("petstore")
    .add(AnimalsGroup)
    .add(messagesGroup(quickstartBasePath))
    .add(UsageGroup)
    .annotate(OpenApi.Title, "Pet Store Service")
    .annotate(OpenApi.Version, "1.1.0")
    .annotate(OpenApi.License, { name: "MIT", url: "https://opensource.org/licenses/MIT" })

/** The public API as the standalone server mounts it by default. */
export const Api = makeApi()
export type Api = typeof Api
