/**
 * Hostile JSON bodies for `POST /pets` and `POST /messages`: malformed JSON, invalid UTF-8, lone
 * surrogate escapes, deep nesting and odd numbers, each with the statuses docs/api.md allows.
 */

import * as fc from "fast-check"
import * as Invalid from "../arbitraries/Invalid.js"
import * as Valid from "../arbitraries/Valid.js"
import { latin1, utf8 } from "./RawRequest.js"

/** A body and what it is. @category models */
export interface Payload {
  readonly kind: string
  readonly note: string
  /** `pets` or `messages`: the operation it is sent to. */
  readonly operation: "pets" | "messages"
  readonly body: Uint8Array
  readonly contentType: string | undefined
  /** Statuses allowed besides 429 (the account's limits come first). */
  readonly statuses: ReadonlyArray<number> | undefined
}

const pet = (fields: string) => `{"name":"Rex","categoryId":1${fields}}`

/** JSON the parser must refuse: 400 `invalid_json` (or `invalid_request` for bodies that are JSON). */
const malformedJson: fc.Arbitrary<Payload> = fc.oneof(
  fc.constantFrom(
    "", " ", "{", "}", "{\"name\":", "{\"name\":\"Rex\",\"categoryId\":1,}", "{'name':'Rex','categoryId':1}", "{name:\"Rex\"}",
    "{\"name\":\"Rex\"/*c*/,\"categoryId\":1}", "{\"name\":\"Rex\",\"categoryId\":1}}", "[{\"name\":\"Rex\"}", "\"unterminated",
    "{\"name\":\"R\u0001ex\",\"categoryId\":1}", "{\"name\":\"\\x41\",\"categoryId\":1}", "{\"name\":\"\\u12\",\"categoryId\":1}",
    "{\"name\":\"Rex\",\"categoryId\":1}\u0000", "nul", "tru", "undefined",
    "{\"a\":1}{\"b\":2}", "{\"name\":\"Rex\" \"categoryId\":1}", "{,}", "[,]", "{\"\":}", "\u0000"
  ).map((text) => ({ note: `malformed JSON ${JSON.stringify(text.slice(0, 60))}`, text })),
  Valid.newPet.chain((p) => {
    const text = JSON.stringify(p)
    return fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((cut) => ({ note: `a pet cut after ${cut} characters`, text: text.slice(0, cut) }))
  })
).chain(({ note, text }) =>
  fc.constantFrom("pets" as const, "messages" as const).map((operation): Payload => ({
    kind: "json",
    note,
    operation,
    body: utf8(text),
    contentType: "application/json",
    statuses: [400]
  }))
)

/** Bodies the interface's own invalid-input arbitraries describe (each with its status). */
const invalidBodies: fc.Arbitrary<Payload> = fc.oneof(
  Invalid.invalidNewPet.map((b) => ({ b, operation: "pets" as const })),
  Invalid.invalidNewMessage.map((b) => ({ b, operation: "messages" as const }))
).map(({ b, operation }) => ({
  kind: "json",
  note: `${b.defect}: ${b.description}`,
  operation,
  body: utf8(b.body),
  contentType: b.contentType ?? undefined,
  statuses: [b.expectedStatus]
}))

const INVALID_UTF8 = [
  "\xff", "\xfe", "\xc3\x28", "\xa0\xa1", "\x80", "\xbf", "\xe2\x28\xa1", "\xe2\x82\x28", "\xe2\x82", "\xf0\x28\x8c\xbc",
  "\xf0\x90\x28\xbc", "\xf8\xa1\xa1\xa1\xa1", "\xfc\xa1\xa1\xa1\xa1\xa1", "\xc0\xaf", "\xc0\x80", "\xe0\x80\xaf",
  "\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf0\x9f\x98"
]

/** Invalid UTF-8 inside a string, a key or around the body: 400 `invalid_json` ("not UTF-8"). */
const invalidUtf8: fc.Arbitrary<Payload> = fc.tuple(
  fc.constantFrom(...INVALID_UTF8),
  fc.constantFrom("name", "key", "message", "before", "after"),
  fc.string({ maxLength: 8 }).map((s) => s.replace(/["\\\u0000-\u001f\u007f-\uffff]/g, "a"))
).map(([bad, where, around]): Payload => {
  const operation = where === "message" ? "messages" : "pets"
  const text = where === "name"
    ? `{"name":"${around}\u0000BAD${around}","categoryId":1}`
    : where === "key"
    ? `{"name":"Rex","\u0000BAD":1,"categoryId":1}`
    : where === "message"
    ? `{"message":"${around}\u0000BAD"}`
    : where === "before"
    ? `\u0000BAD${pet("")}`
    : `${pet("")}\u0000BAD`
  const [head, tail] = text.split("\u0000BAD") as [string, string]
  return {
    kind: "utf-8",
    note: `invalid UTF-8 ${JSON.stringify(bad)} (as latin-1) in the ${where}`,
    operation,
    body: Buffer.concat([utf8(head), latin1(bad), utf8(tail)]),
    contentType: "application/json",
    statuses: [400]
  }
})

const LONE = ["\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\udc00\\ud800", "\\ud83d", "\\ud83dA", "\\ud83d\\u0041", "\\uDE00x"]

/** Lone surrogate escapes: 400 in a name or a message; an ignored field may keep them. */
const loneSurrogates: fc.Arbitrary<Payload> = fc.tuple(fc.constantFrom(...LONE), fc.constantFrom("name", "message", "ignored field"))
  .map(([escape, where]): Payload => ({
    kind: "surrogates",
    note: `lone surrogate ${escape} in the ${where}`,
    operation: where === "message" ? "messages" : "pets",
    body: utf8(
      where === "name" ? `{"name":"Rex ${escape}","categoryId":1}` : where === "message" ? `{"message":"hi ${escape}"}` : pet(`,"x":"${escape}"`)
    ),
    contentType: "application/json",
    statuses: where === "ignored field" ? [201, 400] : [400]
  }))

/** Nesting thousands of levels deep (arrays, objects, both, unclosed), kept under the 64 KiB limit. */
const deepNesting: fc.Arbitrary<Payload> = fc.tuple(
  fc.integer({ min: 33, max: 20_000 }),
  fc.constantFrom("arrays", "objects", "mixed", "unclosed"),
  fc.constantFrom("name", "ignored field", "body", "message")
).map(([levels, shape, where]): Payload => {
  const open = shape === "arrays" || shape === "unclosed" ? "[" : shape === "objects" ? "{\"a\":" : null
  let value: string
  if (open !== null) {
    const n = Math.min(levels, Math.floor(60_000 / (open.length + 1)))
    value = open.repeat(n) + (shape === "unclosed" ? "" : (open === "[" ? "]" : "}").repeat(n))
  } else {
    const n = Math.min(levels, 12_000)
    value = "[{\"a\":".repeat(n / 2) + "1" + "}]".repeat(n / 2)
  }
  const text = where === "name"
    ? `{"name":${value},"categoryId":1}`
    : where === "ignored field"
    ? pet(`,"x":${value}`)
    : where === "message"
    ? `{"message":${value}}`
    : value
  return {
    kind: "nesting",
    note: `${levels} levels of ${shape} in the ${where}`,
    operation: where === "message" ? "messages" : "pets",
    body: utf8(text),
    contentType: "application/json",
    statuses: [400]
  }
})

const ODD_NUMBERS = [
  "1e400", "-1e400", "1e-400", "-0", "0", "-0.0", "1.0", "1.50", "1e0", "1E+0", "10e-1", "9007199254740991", "9007199254740992",
  "9007199254740993", "99999999999999999999999", "-1", "-9007199254740991", "1.7976931348623157e308", "5e-324", "0.1e1",
  "NaN", "-NaN", "Infinity", "-Infinity", "0x10", "01", "-01", ".5", "1.", "+1", "1e", "1e+", "--1", "1_000", "١"
]

/** Odd numbers as `categoryId` (or in an ignored field): 201 or 400, never more. */
const oddNumbers: fc.Arbitrary<Payload> = fc.tuple(
  fc.oneof(
    fc.constantFrom(...ODD_NUMBERS),
    fc.integer({ min: 20, max: 2_000 }).map((digits) => "9".repeat(digits)),
    fc.integer({ min: 310, max: 100_000 }).map((e) => `1e${e}`),
    fc.double().map((d) => String(d))
  ),
  fc.constantFrom("categoryId", "ignored field")
).map(([number, where]): Payload => ({
  kind: "numbers",
  note: `${number.length > 40 ? `${number.slice(0, 20)}… (${number.length} characters)` : number} as the ${where}`,
  operation: "pets",
  body: utf8(where === "categoryId" ? `{"name":"Rex","categoryId":${number}}` : pet(`,"n":${number}`)),
  contentType: "application/json",
  statuses: [201, 400]
}))

/** Every hostile body class. @category arbitraries */
export const hostile: fc.Arbitrary<Payload> = fc.oneof(
  { arbitrary: malformedJson, weight: 3 },
  { arbitrary: invalidBodies, weight: 3 },
  { arbitrary: invalidUtf8, weight: 3 },
  { arbitrary: loneSurrogates, weight: 2 },
  { arbitrary: deepNesting, weight: 2 },
  { arbitrary: oddNumbers, weight: 3 }
)

/** A valid body of either operation. @category arbitraries */
export const valid: fc.Arbitrary<Payload> = fc.oneof(
  Valid.newPet.map((p) => ({ operation: "pets" as const, text: JSON.stringify(p), status: 201 })),
  Valid.newMessage.map((m) => ({ operation: "messages" as const, text: JSON.stringify(m), status: 202 }))
).map(({ operation, status, text }) => ({
  kind: "valid",
  note: `a valid ${operation === "pets" ? "pet" : "message"}`,
  operation,
  body: utf8(text),
  contentType: "application/json",
  statuses: [status]
}))
