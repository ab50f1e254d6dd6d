/**
 * The handlers of the public operations: decoded input in, core service calls, reply out.
 *
 * @since 1.0.0
 */
import { Lifecycle, MessageQueue, type Pet, Pets, Sync } from "@petstore/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type AnimalsGroup, type messagesGroup, PUBLIC_PREFIX } from "../Api.js"
import type { ResponseHeaders } from "../AppResponse.js"
import { Gone, type OperationError } from "../ErrorResponse.js"
import * as GetPetLifecycle from "./getPetLifecycle.js"
import type { GroupHandlers, Reply } from "./routes.js"

/** The `Link` to the next page: a path-absolute reference carrying the query that produced the page. */
export const nextLink = (path: string, limit: number, status: string | undefined, cursor: string): string =>
  `<${path}?limit=${limit}${status === undefined ? "" : `&status=${status}`}&cursor=${encodeURIComponent(cursor)}>; rel="next"`

/**
 * Headers of every `getPet` response: it is deprecated, with a sunset date and a replacement
 * (paths under `basePath`, where the application is mounted).
 */
export const getPetLifecycleHeaders = (
  basePath: string
): { readonly Deprecation: string; readonly Sunset: string; readonly Link: string } => ({
  Deprecation: GetPetLifecycle.DEPRECATION,
  Sunset: GetPetLifecycle.SUNSET,
  Link: `<${basePath}${PUBLIC_PREFIX}/pets>; rel="successor-version", <${basePath}/docs>; rel="deprecation"; type="text/html"`
})

/** The message of `getPet`'s answers from its sunset on (410 `gone`). */
const GET_PET_REMOVED = `GET /pets/{petId} was removed on ${GetPetLifecycle.SUNSET_DAY}; use GET /pets with the status filter.`

/** @category handlers */
export const animals = Effect.gen(function*() {
  const pets = yield* Pets.Pets
  // A full page never changes and the service answers it as the same object (see Pets), so its
  // reply (JSON body and Link) is built once; the entry goes when the service lets the page go.
  const fullPageReplies = new WeakMap<Pets.Page, Reply<ReadonlyArray<Pet.Pet>> & { readonly path: string }>()
  const handlers: GroupHandlers<typeof AnimalsGroup> = {
    listPets: ({ urlParams }, { path }) => {
      const limit = urlParams.limit ?? Pets.PAGE_LIMIT.default
      return Sync.map(
        pets.list({ limit, status: Option.fromNullable(urlParams.status), cursor: Option.fromNullable(urlParams.cursor) }),
        (page) => {
          if (Option.isNone(page.next)) return { value: page.pets }
          const kept = fullPageReplies.get(page)
          if (kept !== undefined && kept.path === path) return kept
          const reply = {
            path,
            value: page.pets,
            encoded: JSON.stringify(page.pets),
            headers: { Link: nextLink(path, limit, urlParams.status, page.next.value) }
          }
          fullPageReplies.set(page, reply)
          return reply
        }
      )
    },
    createPet: ({ payload }, { path }) =>
      Sync.map(pets.create(payload), (pet) => ({ value: pet, headers: { Location: `${path}/${pet.id}` } })),
    getPet: ({ path }) =>
      Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<Reply<Pet.Pet>, OperationError> =>
        Lifecycle.isGetPetSunset(now)
          ? Effect.fail(new Gone({ message: GET_PET_REMOVED }))
          : Effect.map(pets.get(path.petId), (pet) => ({ value: pet })))
  }
  return handlers
})

/** @category handlers */
export const messages = Effect.gen(function*() {
  const queue = yield* MessageQueue.MessageQueue
  const handlers: GroupHandlers<ReturnType<typeof messagesGroup>> = {
    createMessage: ({ payload }, { path, principal }) =>
      Effect.map(
        queue.submit(principal.accountId, payload.message),
        (message) => ({ value: message, headers: { Location: `${path}/${message.id}` } })
      ),
    getMessage: ({ path }, { principal }) =>
      Effect.map(queue.get(principal.accountId, path.id), (message) => ({ value: message }))
  }
  return handlers
})

/**
 * Headers every answer of an operation carries, by operation name, for an application mounted
 * under `basePath` (`""` at the root): the deprecated `getPet` names its sunset and successor.
 */
export const operationHeaders: Readonly<Record<string, (basePath: string) => ResponseHeaders>> = {
  getPet: getPetLifecycleHeaders
}
