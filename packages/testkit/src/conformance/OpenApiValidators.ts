/**
 * The document's schemas as ajv validators, each compiled once when first used: a body by its JSON
 * pointer into the document, a header by its schema.
 */
import { Ajv, type ValidateFunction } from "ajv"
import * as AjvFormats from "ajv-formats"
import { isObject, type Json, type JsonObject, translateNullable } from "./OpenApiJson.js"

const DOC_ID = "openapi.json"

export interface Validators {
  /** Adds to `problems` how the JSON body `text` departs from the schema at `ptr`, if it does. */
  readonly validateBody: (ptr: string, text: string, what: string, problems: Array<string>) => void
  /** Whether a header's raw value (a number when its resolved schema says so) matches its schema. */
  readonly validHeader: (resolvedSchema: Json | undefined, value: unknown) => boolean
  /** A header's raw value as its schema types it: a number for an integer or number schema. */
  readonly headerValue: (schema: Json | undefined, raw: string) => unknown
}

export const makeValidators = (document: JsonObject, resolve: (j: Json | undefined) => Json | undefined): Validators => {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, unicodeRegExp: true })
  ;(AjvFormats.default as unknown as (a: Ajv) => void)(ajv)
  ajv.addSchema({ ...(translateNullable(document) as JsonObject), $id: DOC_ID } as object)

  const validators = new Map<string, ValidateFunction>()
  const validatorAt = (ptr: string): ValidateFunction => {
    let v = validators.get(ptr)
    if (v === undefined) {
      v = ajv.compile({ $ref: DOC_ID + ptr })
      validators.set(ptr, v)
    }
    return v
  }

  const headerValidators = new Map<string, ValidateFunction>()
  const headerValidator = (schema: Json | undefined): ValidateFunction => {
    const text = JSON.stringify(schema ?? {})
    let v = headerValidators.get(text)
    if (v === undefined) {
      v = ajv.compile(translateNullable(schema ?? {}) as object)
      headerValidators.set(text, v)
    }
    return v
  }

  const validateBody = (ptr: string, text: string, what: string, problems: Array<string>) => {
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      problems.push(`${what}: the body is not JSON: ${JSON.stringify(text.slice(0, 80))}`)
      return
    }
    const validate = validatorAt(ptr)
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "(body)"} ${e.message ?? ""}`)
      problems.push(`${what}: the body does not match the schema: ${errors.join("; ")}; body ${text.slice(0, 300)}`)
    }
  }

  const headerValue = (schema: Json | undefined, raw: string): unknown => {
    const s = resolve(schema)
    if (isObject(s) && (s.type === "integer" || s.type === "number")) {
      return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw.trim()) : raw
    }
    return raw
  }

  return { validateBody, validHeader: (schema, value) => headerValidator(schema)(value) as boolean, headerValue }
}
