/**
 * A schema's JSON Schema as one object: the root schema with its definitions under `$defs`, which its
 * `$ref`s point into (`Schema.toJsonSchemaDocument` keeps them apart).
 */
import { Schema } from "effect"

export const jsonSchemaOf = (schema: Schema.Top): Record<string, unknown> & { $defs: Record<string, any> } => {
  const document = Schema.toJsonSchemaDocument(schema)
  return { ...(document.schema as Record<string, unknown>), $defs: document.definitions as Record<string, any> }
}
