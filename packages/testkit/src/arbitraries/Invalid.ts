/**
 * Invalid inputs, one class of defect at a time: each value breaks exactly one rule of the
 * interface and says which (`defect`), so a failure names the rule and not just "bad input".
 * Bodies are raw bytes as sent, so malformed JSON and exotic numbers reach the server intact.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { ApiKey, Pet } from "@petstore/core"

import { newMessage, newPet } from "./Valid.js"

/** The classes of invalid input. @category models */
export type Defect =
  | "missing_required_field"
  | "wrong_type"
  | "not_an_integer"
  | "out_of_range"
  | "unsafe_integer"
  | "blank_name"
  | "name_too_long"
  | "unknown_enum_value"
  | "malformed_json"
  | "wrong_content_type"
  | "missing_content_type"
  | "oversize_body"
  | "repeated_parameter"
  | "forged_cursor"
  | "bad_authorization"

/** A request body with one defect. `contentType: null` sends no `Content-Type`. @category models */
export interface InvalidBody {
  readonly defect: Defect
  readonly description: string
  readonly contentType: string | null
  readonly body: string
  /** The status the interface fixes for it: 400, or 413 for an oversize body. */
  readonly expectedStatus: 400 | 413
}

const JSON_TYPE = "application/json"
/** Bodies above this many bytes are refused with 413. */
export const BODY_LIMIT_BYTES = 64 * 1024

const body = (defect: Defect, description: string, value: unknown, contentType: string | null = JSON_TYPE): InvalidBody => ({
  defect,
  description,
  contentType,
  body: typeof value === "string" ? value : JSON.stringify(value),
  expectedStatus: 400
})

const withField = (pet: object, field: string, raw: string): string => {
  const rest = Object.entries(pet).filter(([k]) => k !== field).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
  return `{${[...rest, `${JSON.stringify(field)}:${raw}`].join(",")}}`
}

const blank = fc.constantFrom("", " ", "   ", "\t", "\n", " \r\n ", "\u00a0", "\u2003", "\u3000", "\ufeff")
const jsonNonString = fc.constantFrom("1", "true", "null", "[]", "{}", "[\"a\"]", "12.5")
const jsonNonNumber = fc.constantFrom("\"12\"", "true", "null", "[]", "{}", "[1]", "\"\"")
const unsafeInteger = fc.oneof(
  fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }).map(String),
  fc.constantFrom("9007199254740992", "9007199254740993", "1e16", "1e300")
)
const outOfRange = fc.oneof(fc.integer({ min: -1_000_000, max: 0 }).map(String), fc.constantFrom("-0", "0", "-9007199254740991"))
const fraction = fc.oneof(
  fc.double({ min: 0.001, max: 1e6, noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isInteger(x)).map(String),
  fc.constantFrom("1.5", "0.5", "2.000001")
)
const unknownStatus = fc.oneof(
  fc.constantFrom("adopted", "Available", "AVAILABLE", "", " available", "sold "),
  fc.string({ minLength: 1, maxLength: 12 })
).filter((s) => !(["available", "pending", "sold"] as ReadonlyArray<string>).includes(s))

const malformedJson = fc.oneof(
  fc.constantFrom("{", "{\"name\":", "{'name':'Rex','categoryId':1}", "{\"name\":\"Rex\",\"categoryId\":1,}", "nul", "NaN", "{\"a\":1}}", "\u0000"),
  newPet.map((p) => JSON.stringify(p).slice(0, -1))
)
const wrongContentType = fc.constantFrom(
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/jsonx",
  "text/json"
)

const oversize = <A extends object>(valid: fc.Arbitrary<A>): fc.Arbitrary<InvalidBody> =>
  fc.tuple(valid, fc.integer({ min: 1, max: 4096 })).map(([v, extra]) => ({
    defect: "oversize_body" as const,
    description: `a ${BODY_LIMIT_BYTES + extra}-byte body (the limit is 64 KiB)`,
    contentType: JSON_TYPE,
    body: JSON.stringify({ ...v, padding: "x".repeat(BODY_LIMIT_BYTES + extra) }),
    expectedStatus: 413 as const
  }))

/** Content-type and syntax defects shared by every JSON body. */
const transportDefects = <A extends object>(valid: fc.Arbitrary<A>): ReadonlyArray<fc.Arbitrary<InvalidBody>> => [
  malformedJson.map((raw) => body("malformed_json", `malformed JSON ${JSON.stringify(raw.slice(0, 40))}`, raw)),
  fc.tuple(valid, wrongContentType).map(([v, ct]) =>
    body("wrong_content_type", `valid JSON sent as ${ct}`, v, ct)
  ),
  valid.map((v) => body("missing_content_type", "valid JSON without Content-Type", v, null)),
  oversize(valid)
]

/** An invalid `POST /pets` body, one defect at a time. @category arbitraries */
export const invalidNewPet: fc.Arbitrary<InvalidBody> = fc.oneof(
  newPet.chain((p) =>
    fc.constantFrom("name", "categoryId").map((field) => {
      const { [field as "name"]: _, ...rest } = p
      return body("missing_required_field", `\`${field}\` left out`, rest)
    })
  ),
  fc.constant(body("missing_required_field", "an empty object", {})),
  fc.tuple(newPet, jsonNonString).map(([p, raw]) => body("wrong_type", `name ${raw}`, withField(p, "name", raw))),
  fc.tuple(newPet, jsonNonNumber).map(([p, raw]) => body("wrong_type", `categoryId ${raw}`, withField(p, "categoryId", raw))),
  fc.tuple(newPet, fc.constantFrom("null", "1", "true", "[\"sold\"]")).map(([p, raw]) =>
    body("wrong_type", `status ${raw}`, withField(p, "status", raw))
  ),
  fc.constantFrom("[]", "\"Rex\"", "42", "null", "true").map((raw) => body("wrong_type", `a body that is ${raw}`, raw)),
  fc.tuple(newPet, fraction).map(([p, raw]) => body("not_an_integer", `categoryId ${raw}`, withField(p, "categoryId", raw))),
  fc.tuple(newPet, outOfRange).map(([p, raw]) => body("out_of_range", `categoryId ${raw}`, withField(p, "categoryId", raw))),
  fc.tuple(newPet, unsafeInteger).map(([p, raw]) => body("unsafe_integer", `categoryId ${raw}`, withField(p, "categoryId", raw))),
  fc.tuple(newPet, blank).map(([p, name]) => body("blank_name", `name ${JSON.stringify(name)}`, { ...p, name })),
  fc.tuple(newPet, fc.integer({ min: Pet.NAME_MAX_LENGTH + 1, max: Pet.NAME_MAX_LENGTH + 64 })).map(([p, n]) =>
    body("name_too_long", `a name of ${n} characters`, { ...p, name: "n".repeat(n) })
  ),
  fc.tuple(newPet, unknownStatus).map(([p, status]) =>
    body("unknown_enum_value", `status ${JSON.stringify(status)}`, { ...p, status })
  ),
  ...transportDefects(newPet)
)

/** An invalid `POST /messages` body, one defect at a time. @category arbitraries */
export const invalidNewMessage: fc.Arbitrary<InvalidBody> = fc.oneof(
  fc.constant(body("missing_required_field", "`message` left out", { text: "hello" })),
  jsonNonString.map((raw) => body("wrong_type", `message ${raw}`, `{"message":${raw}}`)),
  fc.constantFrom("[]", "\"hello\"", "7", "null").map((raw) => body("wrong_type", `a body that is ${raw}`, raw)),
  ...transportDefects(newMessage)
)

/** A query string of `GET /pets` with one defect (always 400). @category models */
export interface InvalidQuery {
  readonly defect: Defect
  readonly description: string
  readonly query: string
}

/** An invalid query of `GET /pets` (without cursors; see {@link forgeCursor}). @category arbitraries */
export const invalidListQuery: fc.Arbitrary<InvalidQuery> = fc.oneof(
  fc.oneof(fc.integer({ min: -1000, max: 0 }), fc.integer({ min: 101, max: 100_000 })).map((n) => ({
    defect: "out_of_range" as const,
    description: `limit=${n}`,
    query: `limit=${n}`
  })),
  fc.constantFrom("abc", "1.5", "1e2", "", "%20", "0x10", "ten", "-", "5%20").map((v) => ({
    defect: "not_an_integer" as const,
    description: `limit=${v}`,
    query: `limit=${v}`
  })),
  unsafeInteger.map((v) => ({ defect: "unsafe_integer" as const, description: `limit=${v}`, query: `limit=${v}` })),
  unknownStatus.map((s) => ({
    defect: "unknown_enum_value" as const,
    description: `status=${JSON.stringify(s)}`,
    query: `status=${encodeURIComponent(s)}`
  })),
  fc.constantFrom("limit=5&limit=5", "limit=5&limit=6", "status=sold&status=sold", "status=sold&status=pending").map((q) => ({
    defect: "repeated_parameter" as const,
    description: q,
    query: q
  })),
  fc.oneof(
    fc.base64String({ minLength: 4, maxLength: 40 }).map((s) => s.replace(/=/g, "") + ".AAAAAAAAAAAAAAAAAAAAAA"),
    fc.string({ minLength: 1, maxLength: 30 }),
    fc.constantFrom(".", "abc", "MTA.0", "x".repeat(200))
  ).map((c) => ({ defect: "forged_cursor" as const, description: `cursor=${JSON.stringify(c)}`, query: `cursor=${encodeURIComponent(c)}` }))
)

/** An invalid `petId` path segment (always 400). @category arbitraries */
export const invalidPetId: fc.Arbitrary<{ readonly defect: Defect; readonly segment: string }> = fc.oneof(
  outOfRange.filter((s) => s !== "-0").map((segment) => ({ defect: "out_of_range" as const, segment })),
  fc.constantFrom("abc", "1.5", "1e3", "0x1", "%20", "one").map((segment) => ({ defect: "not_an_integer" as const, segment })),
  unsafeInteger.filter((s) => /^\d+$/.test(s)).map((segment) => ({ defect: "unsafe_integer" as const, segment }))
)

/**
 * Ways to alter a cursor the server issued: each result must be refused with 400.
 *
 * @category arbitraries
 */
export const forgeCursor: fc.Arbitrary<{ readonly description: string; readonly forge: (cursor: string) => string }> = fc.oneof(
  fc.nat().map((i) => ({
    description: "one character of the cursor changed",
    forge: (c: string) => {
      const at = i % c.length
      const ch = c[at] === "A" ? "B" : "A"
      return c.slice(0, at) + ch + c.slice(at + 1)
    }
  })),
  fc.constant({ description: "the cursor truncated", forge: (c: string) => c.slice(0, Math.max(1, c.length - 3)) }),
  fc.constant({ description: "the cursor with a character appended", forge: (c: string) => `${c}A` }),
  fc.constant({ description: "the cursor's two halves swapped", forge: (c: string) => c.split(".").reverse().join(".") })
)

/** A malformed, unknown or mis-schemed `Authorization` header (`null`: none at all). @category arbitraries */
export const badAuthorization: fc.Arbitrary<{ readonly description: string; readonly header: string | null }> = fc.oneof(
  fc.constant({ description: "no Authorization header", header: null }),
  fc.constant({ description: "Basic credentials", header: "Basic dXNlcjpwYXNzd29yZA==" }),
  fc.constant({ description: "an empty bearer token", header: "Bearer " }),
  fc.constant({ description: "the scheme without a space", header: "Bearerpsk_live_x" }),
  fc.stringMatching(/^[0-9A-Za-z]{32}$/).map((s) => ({
    description: "a well-formed key that was never issued",
    header: `Bearer ${ApiKey.KEY_PREFIX.production}${s}`
  })),
  fc.stringMatching(/^[0-9A-Za-z]{32}$/).map((s) => ({
    description: "a well-formed staging key that was never issued",
    header: `Bearer ${ApiKey.KEY_PREFIX.staging}${s}`
  })),
  fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/[\r\n\0]/.test(s) && s.trim() === s && s.length > 0).map((s) => ({
    description: "a random token",
    header: `Bearer ${s.replace(/[^\x21-\x7e]/g, "x")}`
  })),
  fc.constant({ description: "another scheme", header: "Token abc" })
)
