/**
 * `GET /v1/pets`: the animals by id, a page at a time, filtered by status; the next page named by
 * a `Link` with an opaque cursor.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as OpenApi from "effect/http-api/OpenApi"
import { Pet, Pets } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { encoder, type Reply } from "../routes.js"
import { digits, invalid, ResponseHeaders, commonErrors } from "./endpoint.js"
import * as Operation from "./operation.js"

/** `limit` of `GET /pets`: an integer 1..100 written in decimal digits. */
export const Limit = digits.pipe(Schema.decodeTo(Schema.NumberFromString)).check(
  Schema.isInt(),
  Schema.isBetween({ minimum: 1, maximum: 100 }, { message: "must be an integer between 1 and 100" })
).annotate({ description: "Maximum number of animals returned (1..100, default 20).", default: 20 })

/** Query of `GET /pets`. Unknown parameters are ignored; a repeated one is refused before decoding. */
export const ListPetsParams = Schema.Struct({
  limit: Schema.optionalKey(Limit),
  status: Schema.optionalKey(Pet.PetStatus),
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "Opaque cursor from the `Link` header of the previous page." }))
})

const DESCRIPTION = "Returns the animals ordered by `id`, ascending, as a plain JSON array of at most `limit` " +
  "(1 to 100, default 20), only those in `status` when it is given. When more follow, the response " +
  "carries `Link: <…>; rel=\"next\"`: request that reference as is for the next page; a page without it " +
  "is the last. Unknown query parameters are ignored; a repeated `limit`, `status` or `cursor` is `400`."

/** The `Link` to the next page: a path-absolute reference carrying the query that produced the page. */
export const nextLink = (path: string, limit: number, status: string | undefined, cursor: string): string =>
  `<${path}?limit=${limit}${status === undefined ? "" : `&status=${status}`}&cursor=${encodeURIComponent(cursor)}>; rel="next"`

/** A page as the endpoint's success schema encodes it (for the replies kept). */
const encodePage = encoder(Pet.Pets)

export const endpoint = HttpApiEndpoint.get("listPets", "/pets", {
    query: ListPetsParams,
    success: Pet.Pets,
    error: [invalid, ...commonErrors]
  })
  .annotate(OpenApi.Identifier, "listPets")
  .annotate(OpenApi.Summary, "List all animals")
  .annotate(OpenApi.Description, DESCRIPTION)
  .annotate(ResponseHeaders, ["Link"])

export const listPets = Operation.make({
  endpoint,
  handler: Effect.gen(function*() {
    const pets = yield* Pets.Pets
    // A full page never changes and the service answers it as the same object (see Pets), so its
    // reply (encoded body and Link) is built once; the entry goes when the service lets the page go.
    const fullPageReplies = new WeakMap<Pets.Page, Reply<ReadonlyArray<Pet.Pet>> & { readonly path: string }>()
    const handle: Operation.HandlerOf<typeof endpoint> = ({ urlParams }, { path }) => {
      const limit = urlParams.limit ?? Pets.PAGE_LIMIT.default
      const page = pets.list({ limit, status: Option.fromNullishOr(urlParams.status), cursor: Option.fromNullishOr(urlParams.cursor) })
      return Effect.map(page, (page) => {
        if (Option.isNone(page.next)) return { value: page.pets }
        const kept = fullPageReplies.get(page)
        if (kept !== undefined && kept.path === path) return kept
        const reply = {
          path,
          value: page.pets,
          encoded: encodePage(page.pets),
          headers: { Link: nextLink(path, limit, urlParams.status, page.next.value) }
        }
        fullPageReplies.set(page, reply)
        return reply
      })
    }
    return handle
  })
})
