/**
 * The public interface as one `HttpApi` value: the single source of truth for routes, request and
 * response schemas, the OpenAPI document and the typed client.
 *
 * @since 1.0.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import type * as Endpoint from "@effect/platform/HttpApiEndpoint"
import { ErrorBody, Message, Pet } from "@petstore/core"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import { ERROR_CODES } from "./ErrorCodes.js"
import { STORE_UNAVAILABLE } from "./ErrorResponse.js"
import * as GetPetLifecycle from "./internal/getPetLifecycle.js"
import { OPERATION_DESCRIPTIONS } from "./internal/openApiDescriptions.js"

/** The path prefix of the pet operations (part of both environments' base URLs). */
export const PUBLIC_PREFIX = "/v1"

/** Bearer authentication with an API key, on every public operation. */
export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  security: { bearerAuth: HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(OpenApi.Format, "API key")) }
}) {}

/** Response headers an operation sets besides the rate-limit ones (read by the OpenAPI document). */
export class ResponseHeaders extends Context.Tag("@petstore/http-node/ResponseHeaders")<
  ResponseHeaders,
  ReadonlyArray<"Link" | "Location" | "Deprecation" | "Sunset">
>() {}

const digits = Schema.String.pipe(Schema.pattern(/^[0-9]{1,20}$/, { message: () => "must be an integer" }))

/** `limit` of `GET /pets`: an integer 1..100 written in decimal digits. */
export const Limit = Schema.compose(digits, Schema.NumberFromString).pipe(
  Schema.between(1, 100, { message: () => "must be an integer between 1 and 100" })
).annotations({
  jsonSchema: { type: "integer", minimum: 1, maximum: 100, default: 20, description: "Maximum number of animals returned (1..100, default 20)." }
})

/** Query of `GET /pets`. Unknown parameters are ignored; a repeated one is refused before decoding. */
export const ListPetsParams = Schema.Struct({
  limit: Schema.optionalWith(Limit, { exact: true }),
  status: Schema.optionalWith(Pet.PetStatus, { exact: true }),
  cursor: Schema.optionalWith(
    Schema.String.annotations({ description: "Opaque cursor from the `Link` header of the previous page." }),
    { exact: true }
  )
})

/** A pet id in a path: decimal digits of an integer in 1 .. 2^53 − 1. */
export const PetIdParam = Schema.Struct({
  petId: Schema.compose(Schema.compose(digits, Schema.NumberFromString), Pet.PetId).annotations({
    jsonSchema: { type: "integer", format: "int64", minimum: 1, maximum: Pet.MAX_ID, description: "Identifier of the animal." }
  })
})

/** NewPet with exact optionals, so an explicit `null` status is refused with one clear issue. */
export const NewPetBody = Schema.Struct({
  name: Pet.PetName,
  categoryId: Pet.CategoryId,
  status: Schema.optionalWith(Pet.PetStatus, { exact: true })
}).annotations({ identifier: "NewPet", description: "An animal to add; the service assigns its id." })

const error = (status: number, description: string) =>
  ErrorBody.ErrorBody.annotations(HttpApiSchema.annotations({ status, description }))

/** The Error responses every operation can give, whatever its own. */
// Every endpoint already declares an Error body, so adding more statuses leaves its type unchanged.
const withCommonErrors = <E extends Endpoint.HttpApiEndpoint.Any>(endpoint: E): E =>
  (endpoint as unknown as Endpoint.HttpApiEndpoint.AnyWithProps)
    .addError(error(401, "The API key is missing or invalid."))
    .addError(error(429, "Rate limit or daily quota exceeded, or the key is temporarily banned."))
    .addError(error(500, "Internal error."))
    .addError(error(503, STORE_UNAVAILABLE)) as unknown as E

const invalid = error(400, "The request is invalid (query, path or body).")
const tooLarge = error(413, ERROR_CODES.payload_too_large.description)
const notFound = (what: string) => error(404, `The requested ${what} does not exist.`)

/** The pet operations, tag `animals`. */
export class AnimalsGroup extends HttpApiGroup.make("animals")
  .add(
    HttpApiEndpoint.get("listPets", "/pets")
      .setUrlParams(ListPetsParams)
      .addSuccess(Pet.Pets)
      .addError(invalid)
      .pipe(withCommonErrors)
      .annotate(OpenApi.Identifier, "listPets")
      .annotate(OpenApi.Summary, "List all animals")
      .annotate(OpenApi.Description, OPERATION_DESCRIPTIONS.listPets)
      .annotate(ResponseHeaders, ["Link"])
  )
  .add(
    HttpApiEndpoint.post("createPet", "/pets")
      .setPayload(NewPetBody)
      .addSuccess(Pet.Pet.annotations({ description: "The animal, with its assigned id." }), { status: 201 })
      .addError(invalid)
      .addError(tooLarge)
      .pipe(withCommonErrors)
      .annotate(OpenApi.Identifier, "createPet")
      .annotate(OpenApi.Summary, "Add an animal")
      .annotate(OpenApi.Description, OPERATION_DESCRIPTIONS.createPet)
      .annotate(ResponseHeaders, ["Location"])
  )
  .add(
    HttpApiEndpoint.get("getPet", "/pets/:petId")
      .setPath(PetIdParam)
      .addSuccess(Pet.Pet)
      .addError(invalid)
      .addError(notFound("animal"))
      .addError(error(410, `The operation reached its sunset (${GetPetLifecycle.SUNSET}) and was removed.`))
      .pipe(withCommonErrors)
      .annotate(OpenApi.Identifier, "getPet")
      .annotate(OpenApi.Summary, "Get an animal (deprecated: use GET /pets with the status filter)")
      .annotate(OpenApi.Description, OPERATION_DESCRIPTIONS.getPet)
      .annotate(OpenApi.Deprecated, true)
      .annotate(ResponseHeaders, ["Deprecation", "Sunset", "Link"])
  )
  .middleware(ApiKeyAuth)
  .prefix(PUBLIC_PREFIX)
  .annotate(OpenApi.Description, "The animals (pets) kept in the store.")
{}

/** The message-submission example, mounted at its own base path (default `/v1`). */
export const messagesGroup = (basePath: `/${string}` = PUBLIC_PREFIX) =>
  HttpApiGroup.make("messages")
    .add(
      HttpApiEndpoint.post("createMessage", "/messages")
        .setPayload(Message.NewMessage)
        .addSuccess(Message.Message.annotations({ description: "Accepted and queued." }), { status: 202 })
        .addError(invalid)
        .addError(tooLarge)
        .pipe(withCommonErrors)
        .annotate(OpenApi.Identifier, "createMessage")
        .annotate(OpenApi.Summary, "Submit a message")
        .annotate(OpenApi.Description, OPERATION_DESCRIPTIONS.createMessage)
        .annotate(OpenApi.Override, { "x-stability": "experimental" })
        .annotate(ResponseHeaders, ["Location"])
    )
    .add(
      HttpApiEndpoint.get("getMessage", "/messages/:id")
        .setPath(Schema.Struct({ id: Schema.String.annotations({ description: "Identifier of the message (its `id`)." }) }))
        .addSuccess(Message.Message)
        .addError(notFound("message"))
        .pipe(withCommonErrors)
        .annotate(OpenApi.Identifier, "getMessage")
        .annotate(OpenApi.Summary, "Read a message's current state")
        .annotate(OpenApi.Description, OPERATION_DESCRIPTIONS.getMessage)
        .annotate(OpenApi.Override, { "x-stability": "experimental" })
    )
    .middleware(ApiKeyAuth)
    .prefix(basePath)
    .annotate(OpenApi.Description, "The message-submission example (experimental).")

/** The public API with the message example at `quickstartBasePath`. */
export const makeApi = (quickstartBasePath: `/${string}` = PUBLIC_PREFIX) =>
  HttpApi.make("petstore")
    .add(AnimalsGroup)
    .add(messagesGroup(quickstartBasePath))
    .annotate(OpenApi.Title, "Pet Store Service")
    .annotate(OpenApi.Version, "1.0.0")
    .annotate(OpenApi.License, { name: "MIT", url: "https://opensource.org/licenses/MIT" })

/** The public API as the standalone server mounts it by default. */
export const Api = makeApi()
export type Api = typeof Api
