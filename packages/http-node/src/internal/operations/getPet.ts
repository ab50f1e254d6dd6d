/**
 * `GET /v1/pets/{petId}` (deprecated): one animal by id. Every answer carries `Deprecation`,
 * `Sunset` and a `Link` to the replacement; from the sunset on it answers `410 gone`.
 */
import * as Clock from "effect/Clock"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as OpenApi from "effect/http-api/OpenApi"
import { Pet, Pets } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Gone } from "../../ErrorResponse.js"
import { digits, error, invalid, notFound, ResponseHeaders, commonErrors } from "./endpoint.js"
import * as Lifecycle from "./lifecycle.js"
import * as Operation from "./operation.js"

/** A pet id in a path: decimal digits of an integer in 1 .. 2^53 − 1. */
export const PetIdParam = Schema.Struct({
  petId: digits.pipe(Schema.decodeTo(Schema.NumberFromString), Schema.decodeTo(Pet.PetId)).annotate({
    description: "Identifier of the animal."
  })
})

/** Deprecated on 2026-01-01; removed (410) from 2030-12-05T00:00:00Z on; replaced by the list's status filter. */
export const LIFECYCLE: Lifecycle.Deprecation = {
  deprecatedAt: Date.UTC(2026, 0, 1),
  sunsetAt: Date.UTC(2030, 11, 5),
  successor: { method: "GET", path: "/pets", how: "with the `status` filter" }
}

const SUNSET = Lifecycle.sunsetValue(LIFECYCLE)

const DESCRIPTION = "**Deprecated**: use `GET /v1/pets` with the `status` filter instead. Every answer carries " +
  "`Deprecation`, `Sunset` and a `Link` to the replacement; from the sunset " +
  `(${SUNSET}) on, the operation answers \`410 gone\`.`

export const endpoint = HttpApiEndpoint.get("getPet", "/pets/:petId", {
    params: PetIdParam,
    success: Pet.Pet,
    error: [invalid, notFound("animal"), error(410, `The operation reached its sunset (${SUNSET}) and was removed.`), ...commonErrors]
  })
  .annotate(OpenApi.Identifier, "getPet")
  .annotate(OpenApi.Summary, "Get an animal (deprecated: use GET /pets with the status filter)")
  .annotate(OpenApi.Description, DESCRIPTION)
  .annotate(OpenApi.Deprecated, true)
  .annotate(Lifecycle.Deprecated, LIFECYCLE)
  .annotate(ResponseHeaders, ["Deprecation", "Sunset", "Link"])

const GONE = Effect.fail(
  new Gone({
    operation: "GET /pets/{petId}",
    removedOn: Lifecycle.sunsetDay(LIFECYCLE),
    replacement: `${LIFECYCLE.successor.method} ${LIFECYCLE.successor.path} ${LIFECYCLE.successor.how.replaceAll("`", "")}`
  })
)

export const getPet = Operation.make({
  endpoint,
  handler: Effect.gen(function*() {
    const pets = yield* Pets.Pets
    const clock = yield* Clock.Clock
    const handle: Operation.HandlerOf<typeof endpoint> = ({ path }) =>
      Lifecycle.isSunset(LIFECYCLE, clock.currentTimeMillisUnsafe())
        ? GONE
        : Effect.map(pets.get(path.petId), (pet) => ({ value: pet }))
    return handle
  }),
  headers: (basePath) => Lifecycle.headers(LIFECYCLE, basePath)
})
