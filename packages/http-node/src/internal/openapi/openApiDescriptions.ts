/**
 * The prose of the OpenAPI document: its introduction (authentication, rate limits, pagination,
 * deprecation, stability, errors), the tags', and the `default` response's descriptions (each operation's own is in its module). Every renderer of the
 * document (the page at `/docs`, generated clients' docs) shows it, so it is written once, here.
 */
import { Plan } from "@petstore/core"
import { ERROR_CODES } from "../../ErrorResponse.js"
import * as Lifecycle from "../operations/lifecycle.js"
import type { OpenApiDocument, Operation, Tag } from "./documentModel.js"

/** Tags every document declares; a group's own description, when annotated, wins. @category descriptions */
export const DECLARED_TAGS: ReadonlyArray<Required<Tag>> = [
  { name: "animals", description: "The animals (pets) kept in the store: list them, add one, fetch one (deprecated)." },
  { name: "messages", description: "The message-submission example (experimental), mounted at its own base path." },
  {
    name: "store",
    description: "Navigation group only, with no operations. `GET /store/orders` is named by the interface " +
      "but not served (404)."
  },
  { name: "pets", description: "Navigation group only, with no operations: the pet operations are under `animals`." }
]

const cell = (text: string | number): string => String(text).replace(/\|/g, "\\|")

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>): string =>
  [header, header.map(() => "---"), ...rows].map((row) => `| ${row.map(cell).join(" | ")} |`).join("\n")

const operationList = (paths: OpenApiDocument["paths"], keep: (op: Operation) => boolean): string =>
  Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) =>
      op !== undefined && keep(op) ? [`\`${method.toUpperCase()} ${path}\``] : []
    )
  ).join(", ")

/**
 * The document's `info.description`: `intro` (the API's own summary and description, when annotated),
 * then the rules every operation shares.
 *
 * @category descriptions
 */
export const describe = (
  intro: ReadonlyArray<string>,
  paths: OpenApiDocument["paths"],
  deprecations: ReadonlyMap<string, Lifecycle.Deprecation>
): string => {
  const experimental = operationList(paths, (op) => op["x-stability"] === "experimental")
  return [
    ...intro,
    "The pet store service: an HTTP API with JSON bodies for managing the animals kept in a store, and a " +
    "message-submission example. Paths include the `/v1` prefix; request and response bodies use " +
    "`Content-Type: application/json`.",
    "## Authentication",
    "Every operation needs an API key, sent as `Authorization: Bearer <API_KEY>` (scheme `bearerAuth`). " +
    "A missing, malformed, unknown, revoked or expired key gets `401` with `WWW-Authenticate: Bearer`. " +
    "Failed authentications are themselves limited per client address: past that limit the answer is `429`. " +
    "Only this document (`GET /v1/openapi.json`) and the reference page (`/docs`) need no key.",
    "## Rate limits",
    "Limits apply per account, to all of its keys together: a token bucket refilled continuously " +
    "(the sustained rate is the plan's number per minute, with bursts up to that number, so any 60-second " +
    "window admits at most twice it) and a daily quota that resets at 00:00 UTC. A request passes only if " +
    "both allow it; a refused request consumes nothing from either.",
    table(["Plan", "Requests per minute", "Requests per day"], [
      ...Object.entries(Plan.STANDARD_LIMITS).map(([plan, limits]) => [plan, limits.perMinute, limits.perDay]),
      ["enterprise", "per account", "per account"]
    ]),
    "Every response carries `X-RateLimit-Limit` and `X-RateLimit-Remaining` (integers, of the limit closest " +
    "to exhaustion) and `X-RateLimit-Reset` (Unix time in seconds at which that limit is back to full), and " +
    "the same for every limit in `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers).",
    "A `429` carries `Retry-After` in whole seconds (at least 1). Wait that long before retrying, and back off " +
    "exponentially if it happens again. A key that keeps sending while told to wait is banned for a while " +
    "(`key_banned`, the rest of the ban in `Retry-After`); a client that honours `Retry-After` is never banned.",
    "## Pagination",
    "`GET /v1/pets` returns a plain JSON array of at most `limit` animals (1 to 100, default 20), ordered by " +
    "`id`. When more exist, the response carries `Link: </v1/pets?limit=…&status=…&cursor=…>; rel=\"next\"` " +
    "(RFC 8288, a path-absolute reference): request it as is to get the next page. A page without that link " +
    "is the last. The `cursor` is opaque and tamper-evident: a forged or altered one gets `400 invalid_cursor`. " +
    "Animals added while a client pages are neither skipped nor repeated.",
    "## Deprecation",
    [
      "Deprecated operations are marked `deprecated: true` and answer with `Deprecation` (RFC 9745), `Sunset` " +
      "(RFC 8594) and a `Link` to their replacement.",
      ...[...deprecations].map(([operation, deprecation]) =>
        `\`${operation}\` is deprecated and is removed on ${Lifecycle.sunsetValue(deprecation)}: from then on it answers ` +
        `\`410 gone\`. Use ${Lifecycle.successorText(deprecation)} instead.`
      )
    ].join(" "),
    "## Stability",
    `Operations may carry \`x-stability: experimental\` or \`beta\`. Experimental: ${experimental || "none"}.`,
    "## Errors",
    "Every error response, whatever its status (unknown routes, wrong methods and malformed JSON included), " +
    "has the `Error` body `{ \"code\": string, \"message\": string, \"status\": integer }`. `code` is one of " +
    "these stable values:",
    table(
      ["Code", "Status", "Meaning"],
      Object.entries(ERROR_CODES).map(([code, { description, status }]) => [`\`${code}\``, status, description])
    ),
    "## Not served",
    "The interface names `GET /store/orders` without giving its shape: this service does not serve it and " +
    "answers `404 not_found`. The tags `store` and `pets` are navigation groups with no operations."
  ].join("\n\n")
}

/** Codes the HTTP layer answers with before a request reaches any operation. */
const HTTP_LAYER_CODES = ["invalid_request", "request_timeout", "expectation_failed", "headers_too_large"] as const

/**
 * The description of every operation's `default` response: a status it does not list still has the
 * Error body.
 *
 * @category descriptions
 */
export const DEFAULT_RESPONSE_DESCRIPTION = "Any other status, with the Error body. The HTTP layer answers some " +
  "requests before they reach the operation, without rate-limit headers: " +
  HTTP_LAYER_CODES.map((code) => `${ERROR_CODES[code].status} \`${code}\``).join(", ") + "."

