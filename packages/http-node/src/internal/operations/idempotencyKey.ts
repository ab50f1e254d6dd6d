/**
 * The `Idempotency-Key` request header of the create operations (`POST /pets`, `POST /messages`):
 * its declaration (with the retention it promises), its reading, and the reply of a create that
 * may be keyed. Without the header a create runs as it always did; with it the core's
 * `Idempotency` service carries it out once per key and replays the answer.
 */
import { type Errors, Idempotency, IdempotencyKey } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ResponseHeaders } from "../../AppResponse.js"
import type { Reply, RouteContext } from "../routes.js"
import { error } from "./endpoint.js"
import { ERROR_CODES } from "../../ErrorResponse.js"

/** The header's name as requests carry it (header names are read in lower case). */
const HEADER = "idempotency-key"

const RETENTION_HOURS = Idempotency.MIN_TTL_MILLIS / 3_600_000

/** The header as the OpenAPI document declares it on each create. */
export const headers = Schema.Struct({
  "Idempotency-Key": Schema.optional(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(257)).annotate({
      description: "Makes the create safe to retry (draft-ietf-httpapi-idempotency-key-header): 1 to 255 " +
        "printable ASCII characters, bare (`abc-123`) or as a quoted string (`\"abc-123\"`), chosen by the client " +
        "(a bare key has no comma: a request with two `Idempotency-Key` fields, which HTTP joins with one, is `400`) " +
        "(a UUID is a good key) and scoped to the account. The first request with a key is carried out; a later " +
        "request with the same key and the same body gets the same answer again (status, body and `Location`, " +
        "with `Idempotent-Replayed: true` and fresh rate-limit headers) and creates nothing. While the first is " +
        "being carried out, another gets `409 idempotency_key_in_use` with `Retry-After`; the key with another body " +
        "or on the other create gets `422 idempotency_key_reused`. Answers that come before the operation (401, " +
        "429, 404, 405, 413, 400, 503) are not kept, so the key stays usable after them; a replay passes " +
        `authentication and the rate limiter like any request. Keys are kept at least ${RETENTION_HOURS} hours ` +
        "(the operator's `PETSTORE_IDEMPOTENCY_TTL`, never less); after that a key is new again.",
      examples: ["8e03978e-40d5-43e8-bc93-6894a57f9324"]
    })
  )
})

/** 409: the key's first request is still being carried out. */
export const inUse = error(409, ERROR_CODES.idempotency_key_in_use.description)
/** 422: the key was used with another body or on the other create. */
export const reused = error(422, ERROR_CODES.idempotency_key_reused.description)

const REPLAYED: ResponseHeaders = { "Idempotent-Replayed": "true" }

/**
 * The reply of a create: run `keyed` under the request's key when it carries one (refused 400 when
 * the header names no key), else `plain`; the reply has the created value, its `Location`, and
 * `Idempotent-Replayed: true` when it is a replay.
 */
export const create = <A, E>(
  context: RouteContext,
  keyed: (key: IdempotencyKey.IdempotencyKey) => Effect.Effect<Idempotency.Keyed<A>, E>,
  plain: () => Effect.Effect<A, E>,
  location: (value: A) => string
): Effect.Effect<Reply<A>, E | IdempotencyKey.InvalidIdempotencyKey | Errors.StoreUnavailable> => {
  const header = context.header(HEADER)
  if (header === undefined) return Effect.map(plain(), (value) => ({ value, headers: { Location: location(value) } }))
  const key = IdempotencyKey.parse(header)
  if (Result.isFailure(key)) return Effect.fail(key.failure)
  return Effect.map(keyed(key.success), ({ replayed, value }) => ({
    value,
    headers: replayed ? { Location: location(value), ...REPLAYED } : { Location: location(value) }
  }))
}
