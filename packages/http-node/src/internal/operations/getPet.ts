/**
 * `GET /v1/pets/{petId}` (deprecated): one animal by id. Every answer carries `Deprecation`,
 * `Sunset` and a `Link` to the replacement; from the sunset on it answers `410 gone`.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as OpenApi from "effect/http-api/OpenApi"
import { Lifecycle, Pet, Pets } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Gone } from "../../ErrorResponse.js"
import * as GetPetLifecycle from "../getPetLifecycle.js"
import { digits, error, invalid, notFound, PUBLIC_PREFIX, ResponseHeaders, commonErrors } from "./endpoint.js"
import * as Operation from "./operation.js"

/** A pet id in a path: decimal digits of an integer in 1 .. 2^53 − 1. */
export const PetIdParam = Schema.Struct({
  petId: digits.pipe(Schema.decodeTo(Schema.NumberFromString), Schema.decodeTo(Pet.PetId)).annotate({
    description: "Identifier of the animal."
  })
})

const DESCRIPTION = "**Deprecated**: use `GET /v1/pets` with the `status` filter instead. Every answer carries " +
  "`Deprecation`, `Sunset` and a `Link` to the replacement; from the sunset " +
  `(${GetPetLifecycle.SUNSET}) on, the operation answers \`410 gone\`.`

/** The message of `getPet`'s answers from its sunset on (410 `gone`). */
const REMOVED = `GET /pets/{petId} was removed on ${GetPetLifecycle.SUNSET_DAY}; use GET /pets with the status filter.`

/**
 * Headers of every `getPet` response: it is deprecated, with a sunset date and a replacement
 * (paths under `basePath`, where the application is mounted).
 */
export const lifecycleHeaders = (
  basePath: string
): { readonly Deprecation: string; readonly Sunset: string; readonly Link: string } => ({
  Deprecation: GetPetLifecycle.DEPRECATION,
  Sunset: GetPetLifecycle.SUNSET,
  Link: `<${basePath}${PUBLIC_PREFIX}/pets>; rel="successor-version", <${basePath}/docs>; rel="deprecation"; type="text/html"`
})

export const endpoint = HttpApiEndpoint.get("getPet", "/pets/:petId", {
    params: PetIdParam,
    success: Pet.Pet,
    error: [invalid, notFound("animal"), error(410, `The operation reached its sunset (${GetPetLifecycle.SUNSET}) and was removed.`), ...commonErrors]
  })
  .annotate(OpenApi.Identifier, "getPet")
  .annotate(OpenApi.Summary, "Get an animal (deprecated: use GET /pets with the status filter)")
  .annotate(OpenApi.Description, DESCRIPTION)
  .annotate(OpenApi.Deprecated, true)
  .annotate(ResponseHeaders, ["Deprecation", "Sunset", "Link"])

const GONE = Effect.fail(new Gone({ message: REMOVED }))

export const getPet = Operation.make({
  endpoint,
  handler: Effect.gen(function*() {
    const pets = yield* Pets.Pets
    const clock = yield* Clock.Clock
    const handle: Operation.HandlerOf<typeof endpoint> = ({ path }) =>
      Lifecycle.isGetPetSunset(clock.currentTimeMillisUnsafe())
        ? GONE
        : Effect.map(pets.get(path.petId), (pet) => ({ value: pet }))
    return handle
  }),
  headers: lifecycleHeaders
})
