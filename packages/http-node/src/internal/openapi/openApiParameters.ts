/**
 * What the document says a path or query parameter is: the value it decodes to (an integer id in
 * 1 .. 2^53 − 1, a limit of 1 to 100 with its default), not the text it arrives as, which is what
 * the framework writes.
 *
 * @internal
 */
import * as HttpApi from "effect/http-api/HttpApi"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type { Json, JsonObject } from "./documentModel.js"
import { asJson, isObject, jsonEqual } from "../json.js"
import { routeKey } from "./openApiHeaders.js"
import { toSchema30 } from "./openApiSchema.js"

/**
 * The JSON Schema of the values `ast` decodes to. A definition equal to one of the document's
 * `components` stays a reference to it (as a query's `status` refers to `PetStatus`); any other is
 * inlined.
 */
const decodedSchema = (ast: SchemaAST.AST, components: { readonly [name: string]: JsonObject }): JsonObject => {
  const document = Schema.toJsonSchemaDocument(Schema.make(SchemaAST.toType(ast)))
  const inline = (schema: Json): Json => {
    if (Array.isArray(schema)) return schema.map(inline)
    if (!isObject(schema)) return schema
    if (typeof schema.$ref === "string") {
      const { $ref, ...rest } = schema
      const name = $ref.replace(/^#\/\$defs\//, "")
      const definition = asJson(document.definitions[name]) as JsonObject
      if (components[name] !== undefined && jsonEqual(toSchema30(definition), components[name])) return schema
      return inline({ ...definition, ...rest })
    }
    return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inline(value)]))
  }
  return toSchema30(inline(asJson(document.schema)))
}

/**
 * The schema of each path and query parameter of every endpoint of `api`, by `routeKey` then name;
 * `components` are the document's component schemas (already in the 3.0.3 form).
 */
export const byRoute = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  components: { readonly [name: string]: JsonObject }
): ReadonlyMap<string, ReadonlyMap<string, JsonObject>> => {
  const routes = new Map<string, ReadonlyMap<string, JsonObject>>()
  HttpApi.reflect(api as unknown as HttpApi.HttpApi<string, HttpApiGroup.Top>, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const parameters = new Map<string, JsonObject>()
      for (const schema of [endpoint.params, endpoint.query]) {
        const ast = schema === undefined ? undefined : SchemaAST.toType(schema.ast)
        if (ast === undefined || !SchemaAST.isObjects(ast)) continue
        for (const property of ast.propertySignatures) parameters.set(String(property.name), decodedSchema(property.type, components))
      }
      routes.set(routeKey(endpoint.method, endpoint.path.replace(/:(\w+)\??/g, "{$1}")), parameters)
    }
  })
  return routes
}
