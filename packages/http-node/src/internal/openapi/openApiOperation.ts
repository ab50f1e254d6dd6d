/**
 * One operation of the OpenAPI document, from the one `OpenApi.fromApi` emits: responses with their
 * headers and the Error body (the framework's decode error left out where the endpoint does not
 * declare it), the shared `default` response, parameters, and security that never reads as "no
 * authentication".
 *
 * @internal
 */
import type * as OpenApi from "effect/http-api/OpenApi"
import { ERROR_CODES } from "../../ErrorResponse.js"
import { DEFAULT_RESPONSE_DESCRIPTION } from "./openApiDescriptions.js"
import type { Content, JsonObject, Operation, Parameter, Response, SecurityRequirement } from "./documentModel.js"
import { asJson, isObject, mapValues, omit } from "../json.js"
import * as OpenApiHeaders from "./openApiHeaders.js"
import { ERROR_REF, SCHEMAS, toSchema30 } from "./openApiSchema.js"

const DECODE_ERROR = `${SCHEMAS}HttpApiDecodeError`

/** The body of every error response. */
const ERROR_CONTENT: Content = { "application/json": { schema: ERROR_REF } }

/** The `default` response of every operation: a status it does not list still has the Error body. */
const DEFAULT_RESPONSE: Response = {
  description: DEFAULT_RESPONSE_DESCRIPTION,
  headers: OpenApiHeaders.DEFAULT_RESPONSE_HEADERS,
  content: ERROR_CONTENT
}

/**
 * A response the framework adds to every operation (its decode error) that the endpoint itself does
 * not declare: the server never sends it, so the document leaves it out.
 */
const onlyDecodeError = (response: OpenApi.OpenApiSpecResponse): boolean => {
  const schemas = Object.values(response.content ?? {}).map((media) => asJson(media.schema))
  return schemas.length > 0 && schemas.every((s) => isObject(s) && s.$ref === DECODE_ERROR)
}

/** The description of an error response, preferring the endpoint's own over the framework's decode error. */
const errorDescription = (response: OpenApi.OpenApiSpecResponse): string => {
  const own = Object.values(response.content ?? {})
    .map((media) => asJson(media.schema))
    .flatMap((s) => isObject(s) && Array.isArray(s.anyOf) ? s.anyOf : [s])
    .find((s) => isObject(s) && s.$ref !== DECODE_ERROR && typeof s.description === "string")
  if (isObject(own) && typeof own.description === "string") return own.description
  return onlyDecodeError(response) ? ERROR_CODES.invalid_request.description : response.description
}

const content = (source: OpenApi.OpenApiSpecContent, schemaOf: (schema: JsonObject) => JsonObject): Content =>
  mapValues(source as Record<string, OpenApi.OpenApiSpecMediaType>, (media) => ({
    schema: schemaOf(toSchema30(asJson(media.schema)))
  }))

const parameter = (decoded: ReadonlyMap<string, JsonObject> | undefined) => (p: OpenApi.OpenAPISpecParameter): Parameter => {
  const schema = decoded?.get(p.name) ?? toSchema30(asJson(p.schema))
  // The description is the parameter's (the framework may write it on the schema alone).
  const description = p.description ?? (typeof schema.description === "string" ? schema.description : undefined)
  return {
    name: p.name,
    in: p.in,
    required: p.required,
    ...(description === undefined ? {} : { description }),
    // The framework copies the description into the schema; once is enough for generated docs.
    schema: schema.description === description ? omit(schema, "description") : schema
  }
}

/** What the operations of one document share. */
export interface Shared {
  /** The response headers each endpoint declares, by `OpenApiHeaders.routeKey`. */
  readonly declared: ReadonlyMap<string, ReadonlyArray<OpenApiHeaders.DeclaredHeader>>
  /** A success schema as the document writes it (a reference when it equals a component). */
  readonly successSchema: (schema: JsonObject) => JsonObject
  /** What each path and query parameter decodes to, by `OpenApiHeaders.routeKey` then name (`openApiParameters`). */
  readonly parameters: ReadonlyMap<string, ReadonlyMap<string, JsonObject>>
  /** The API-level security requirements, without empty ones. */
  readonly apiSecurity: ReadonlyArray<SecurityRequirement>
}

/** The document's operation at `path` and `method`, from the framework's `op`. */
export const make = (shared: Shared, path: string, method: string, op: OpenApi.OpenAPISpecOperation): Operation => {
  const headers = shared.declared.get(OpenApiHeaders.routeKey(method, path)) ?? []
  const responses = Object.entries(op.responses as Record<string, OpenApi.OpenApiSpecResponse>).filter(
    ([, response]) => !onlyDecodeError(response)
  ).map(([status, response]): readonly [string, Response] => {
    const headerObject = OpenApiHeaders.responseHeaders(Number(status), headers)
    return Number(status) >= 400
      ? [status, { description: errorDescription(response), headers: headerObject, content: ERROR_CONTENT }]
      : [status, {
        description: response.description,
        headers: headerObject,
        ...(response.content === undefined ? {} : { content: content(response.content, shared.successSchema) })
      }]
  })
  const security = op.security.filter((requirement) => Object.keys(requirement).length > 0)
  const extensions = Object.entries(op).filter(([key]) => key.startsWith("x-"))
  return {
    operationId: op.operationId,
    tags: op.tags,
    ...(op.summary === undefined ? {} : { summary: op.summary }),
    ...(op.description === undefined ? {} : { description: op.description }),
    ...(op.deprecated === undefined ? {} : { deprecated: op.deprecated }),
    ...(op.parameters.length === 0 ? {} : { parameters: op.parameters.map(parameter(shared.parameters.get(OpenApiHeaders.routeKey(method, path)))) }),
    ...(op.requestBody === undefined ? {} : {
      requestBody: { required: op.requestBody.required, content: content(op.requestBody.content, (s) => s) }
    }),
    responses: { ...Object.fromEntries(responses), default: DEFAULT_RESPONSE },
    // An empty list would mean "no authentication"; fall back to the API-level requirement.
    ...(security.length > 0 ? { security } : shared.apiSecurity.length > 0 ? { security: shared.apiSecurity } : {}),
    ...Object.fromEntries(extensions.map(([key, value]) => [key, asJson(value)]))
  }
}
