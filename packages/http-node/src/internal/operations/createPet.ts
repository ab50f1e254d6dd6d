/**
 * `POST /v1/pets`: adds an animal; `201` with it and its `Location`.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as OpenApi from "effect/http-api/OpenApi"
import { Idempotency, Pet, Pets } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { BODY_LIMIT_TEXT } from "../limits.js"
import { invalid, ResponseHeaders, tooLarge, commonErrors } from "./endpoint.js"
import * as IdempotencyKeyHeader from "./idempotencyKey.js"
import * as Operation from "./operation.js"

/** The body is core's `NewPet` itself: the fields a pet is created with are declared once. */
export const NewPetBody = Pet.NewPet

const DESCRIPTION = "Adds an animal and answers `201` with it and its `Location`. `name` needs a non-blank " +
  "character and at most 256 characters; `categoryId` is an integer from 1 to 2^53 − 1; `status` is " +
  "`available` when omitted. Unknown fields, and `id`, are ignored: the service assigns the id. The body " +
  `is JSON (\`Content-Type: application/json\`) of at most ${BODY_LIMIT_TEXT}.`

export const endpoint = HttpApiEndpoint.post("createPet", "/pets", {
    headers: IdempotencyKeyHeader.headers,
    payload: NewPetBody,
    // The same fields, described as this answer (the document refers to the Pet component).
    success: Schema.Struct(Pet.Pet.fields).annotate({ description: "The animal, with its assigned id (or the replay of an earlier request's answer)." }).pipe(HttpApiSchema.status(201)),
    error: [invalid, IdempotencyKeyHeader.inUse, tooLarge, IdempotencyKeyHeader.reused, ...commonErrors]
  })
  .annotate(OpenApi.Identifier, "createPet")
  .annotate(OpenApi.Summary, "Add an animal")
  .annotate(OpenApi.Description, DESCRIPTION)
  .annotate(ResponseHeaders, ["Location", "Idempotent-Replayed"])

export const createPet = Operation.make({
  endpoint,
  handler: Effect.map(Effect.all([Pets.Pets, Idempotency.Idempotency]), ([pets, idempotency]) => ({ payload }, context) =>
    IdempotencyKeyHeader.create(
      context,
      (key) => idempotency.createPet(context.principal.accountId, key, payload),
      () => pets.create(payload),
      (pet) => `${context.path}/${pet.id}`
    ))
})
