/**
 * Response encoders compiled once from an endpoint's success schema. Where the schema's encoding
 * changes nothing but the shape (structs, arrays, refinements, literals, unions of values that
 * encode to themselves), the compiled encoder copies the declared fields, and only those, into the
 * encoded value: what `Schema.encode` gives for a value of the schema, at a small fraction of its
 * cost per request (it re-checks every refinement). Any part of a schema that transforms (a date
 * to a string, a class) is encoded by `Schema.encodeSync` of that part.
 *
 * @since 1.0.0
 */
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

/** A value of the schema → its encoded value. */
type Encode = (value: unknown) => unknown

const identity: Encode = (value) => value

/** The schema's own encoder, for a part the compiler does not copy itself. */
const bySchema = (ast: SchemaAST.AST): Encode => Schema.encodeSync(Schema.make<unknown, unknown, never>(ast))

/** Whether every value of `ast` encodes to itself (no transformation anywhere inside). */
const encodesToItself = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "Literal":
    case "UniqueSymbol":
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "BigIntKeyword":
    case "UndefinedKeyword":
    case "VoidKeyword":
    case "NeverKeyword":
    case "UnknownKeyword":
    case "AnyKeyword":
    case "Enums":
    case "TemplateLiteral":
      return true
    case "Refinement":
      return encodesToItself(ast.from)
    case "Union":
      return ast.types.every(encodesToItself)
    default:
      return false
  }
}

const compileStruct = (ast: SchemaAST.TypeLiteral): Encode => {
  if (ast.indexSignatures.length > 0) return bySchema(ast)
  if (ast.propertySignatures.some((p) => typeof p.name !== "string")) return bySchema(ast)
  const fields = ast.propertySignatures.map((p) => ({
    name: p.name as string,
    optional: p.isOptional,
    encode: compileAst(p.type)
  }))
  return copier(fields)
}

/**
 * A copier of `fields`, in their order, made once as straight-line code: named reads and writes
 * (`to["name"] = from["name"]`) are what the engine makes fast, where a loop over the names reads
 * and writes by a key it cannot predict. Names are written as JSON string literals; the fields'
 * own encoders are passed in, called only where a field does not encode to itself.
 */
const copier = (fields: ReadonlyArray<{ readonly name: string; readonly optional: boolean; readonly encode: Encode }>): Encode => {
  const encoders = fields.map((field) => field.encode)
  const lines = fields.map((field, index) => {
    const key = JSON.stringify(field.name)
    const value = field.encode === identity ? `from[${key}]` : `encoders[${index}](from[${key}])`
    return field.optional
      ? `if (from[${key}] !== undefined) to[${key}] = ${value};`
      : `to[${key}] = ${value};`
  })
  return new Function("encoders", `return function copy(from) { const to = {}; ${lines.join(" ")} return to; }`)(encoders) as Encode
}

const compileArray = (ast: SchemaAST.TupleType): Encode => {
  if (ast.elements.length > 0 || ast.rest.length !== 1) return bySchema(ast)
  const item = compileAst(ast.rest[0]!.type)
  if (item === identity) return identity
  return (value) => (value as ReadonlyArray<unknown>).map(item)
}

const compileAst = (ast: SchemaAST.AST): Encode => {
  if (encodesToItself(ast)) return identity
  switch (ast._tag) {
    case "Refinement":
      return compileAst(ast.from)
    case "TypeLiteral":
      return compileStruct(ast)
    case "TupleType":
      return compileArray(ast)
    default:
      return bySchema(ast)
  }
}

/** The encoder of `ast`'s values, as JSON text. */
export const compile = (ast: SchemaAST.AST): ((value: unknown) => string) => {
  const encode = compileAst(ast)
  return (value) => JSON.stringify(encode(value))
}
