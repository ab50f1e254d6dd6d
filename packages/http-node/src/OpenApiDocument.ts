/**
 * The OpenAPI 3.0.3 document of the public interface. It is derived from the `HttpApi` (never a
 * hand-written copy of the paths) and corrects what `OpenApi.fromApi` emits on the 3.x line: the 3.1
 * dialect (`internal/openapi/openApiSchema.ts`), the framework's decode-error body and the missing response
 * headers (`internal/openapi/openApiOperation.ts`, `internal/openapi/openApiHeaders.ts`), tags, prose
 * (`internal/openapi/openApiDescriptions.ts`) and security.
 *
 * @since 1.0.0
 */
import type * as HttpApi from "effect/http-api/HttpApi"
import * as OpenApi from "effect/http-api/OpenApi"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import { asJson } from "./internal/json.js"
import * as OpenApiHeaders from "./internal/openapi/openApiHeaders.js"
import * as OpenApiParameters from "./internal/openapi/openApiParameters.js"
import * as OpenApiOperation from "./internal/openapi/openApiOperation.js"
import * as OpenApiSchema from "./internal/openapi/openApiSchema.js"
import { DECLARED_TAGS, describe } from "./internal/openapi/openApiDescriptions.js"

/** The keys of an OpenAPI path item that are operations (the others are its parameters, summary ...). */
const HTTP_METHODS: ReadonlySet<string> = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])

export type {
  Json,
  JsonObject,
  Reference,
  Server,
  Tag,
  Header,
  Parameter,
  Content,
  Response,
  SecurityRequirement,
  Operation,
  Method,
  PathItem,
  SecurityScheme,
  OpenApiDocument
} from "./internal/openapi/documentModel.js"
import type { OpenApiDocument, PathItem, SecurityRequirement, Server, Tag } from "./internal/openapi/documentModel.js"

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

/** Where questions about the interface go: the project's issue tracker. */
const CONTACT = { name: "Pet Store Service", url: "https://github.com/petstore-service/petstore/issues" }

/**
 * Builds the OpenAPI 3.0.3 document of `api`. Pure: the same input gives an equal document, and the
 * (cached, shared) output of `OpenApi.fromApi` is never mutated. Call it once at start-up.
 *
 * @category constructors
 * @since 1.0.0
 */
export const make = <Id extends string, Groups extends HttpApiGroup.Constraint>(options: {
  readonly api: HttpApi.HttpApi<Id, Groups>
  readonly servers: ReadonlyArray<Server>
}): OpenApiDocument => {
  const source = OpenApi.fromApi(options.api)
  const schemas = OpenApiSchema.components(source.components.schemas)
  const declared = OpenApiHeaders.declaredByRoute(options.api)
  const shared: OpenApiOperation.Shared = {
    declared: declared.headers,
    parameters: OpenApiParameters.byRoute(options.api, schemas),
    successSchema: OpenApiSchema.referencing(schemas),
    apiSecurity: source.security.filter((requirement) => Object.keys(requirement).length > 0)
  }

  const paths: { readonly [path: string]: PathItem } = Object.fromEntries(
    Object.entries(source.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).flatMap(([method, op]) =>
          op === undefined || !HTTP_METHODS.has(method) ? [] : [[method, OpenApiOperation.make(shared, path, method, op as OpenApi.OpenAPISpecOperation)]]
        )
      )
    ])
  )

  const ownTags = new Map(source.tags.map((tag) => [tag.name, tag]))
  const tags: ReadonlyArray<Tag> = [
    ...source.tags.map((tag): Tag => {
      const description = tag.description ?? DECLARED_TAGS.find((t) => t.name === tag.name)?.description
      return description === undefined ? { name: tag.name } : { name: tag.name, description }
    }),
    ...DECLARED_TAGS.filter((tag) => !ownTags.has(tag.name))
  ]

  const securities = new Set(Object.values(paths).flatMap((item) => Object.values(item).map((op) => JSON.stringify(op.security ?? []))))
  const [common] = securities
  const security: ReadonlyArray<SecurityRequirement> | undefined = securities.size === 1 && common !== "[]"
    ? JSON.parse(common!)
    : undefined

  const intro = [source.info.summary, source.info.description].filter((s): s is string => s !== undefined)
  return {
    openapi: "3.0.3",
    info: {
      title: source.info.title,
      version: source.info.version,
      description: describe(intro, paths, declared.deprecations),
      contact: CONTACT,
      ...(source.info.license === undefined ? {} : { license: source.info.license })
    },
    servers: options.servers.map(({ description, url }) => ({ url, description })),
    ...(security === undefined ? {} : { security }),
    tags,
    paths,
    components: {
      schemas: OpenApiSchema.reachable(schemas, [asJson(paths), OpenApiSchema.ERROR_REF]),
      headers: OpenApiHeaders.components(asJson(paths), declared.deprecations.values().next().value),
      // HTTP auth scheme names are case-insensitive (RFC 9110); written in lower case, as the registry lists them.
      securitySchemes: Object.fromEntries(Object.entries(source.components.securitySchemes).map(([name, scheme]) => [
        name,
        "scheme" in scheme && typeof scheme.scheme === "string" ? { ...scheme, scheme: scheme.scheme.toLowerCase() } : scheme
      ]))
    }
  }
}
