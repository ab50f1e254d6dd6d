/**
 * Odd request lines and bytes that are no HTTP at all: methods (standard ones a route does not
 * have, extension methods, unknown and malformed ones, CONNECT), protocol versions (1.0 with and
 * without keep-alive, 0.9-style lines, versions that do not exist), and garbage (random bytes, a
 * TLS ClientHello, the HTTP/2 preface).
 */

import * as fc from "fast-check"
import { latin1, type RawRequest } from "./RawRequest.js"
import { build, type FuzzTarget, withKey } from "./Requests.js"

const STANDARD = ["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]
const EXTENSION = ["PROPFIND", "MKCOL", "PURGE", "LINK", "SEARCH", "QUERY", "REPORT", "MOVE", "LOCK", "M-SEARCH", "SOURCE"]
const UNKNOWN = ["FOO", "BREW", "get", "Get", "GETT", "POSTT", "G-E-T", "GET/", "X".repeat(64), "P0ST", "DELETEE", "HEADER"]

const methods = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.tuple(
    fc.oneof(
      { arbitrary: fc.constantFrom(...STANDARD).map((m) => ({ m, class: "standard" as const })), weight: 3 },
      { arbitrary: fc.constantFrom(...EXTENSION).map((m) => ({ m, class: "extension" as const })), weight: 2 },
      { arbitrary: fc.constantFrom(...UNKNOWN).map((m) => ({ m, class: "unknown" as const })), weight: 2 }
    ),
    fc.constantFrom(`${t.prefix}/pets`, `${t.prefix}/pets/1`, `${t.prefix}/messages`, `${t.prefix}/nowhere`, "/admin/v1/accounts"),
    fc.boolean()
  ).map(([{ class: c, m }, target, withBody]) =>
    build(t, {
      kind: "method",
      note: `${c} method ${m.length > 20 ? `${m.slice(0, 20)}…` : m}${withBody ? " with a body" : ""}`,
      method: m,
      target,
      ...(withBody ? { body: "{\"name\":\"Rex\",\"categoryId\":1}", contentType: "application/json" } : {}),
      // A standard method a route does not have is 405 (404 off the routes); others may be refused
      // as unknown by the parser, which then closes the connection.
      framing: c === "standard" ? "valid" : "doubtful",
      statuses: c === "standard" ? (target.startsWith("/admin") ? [401, 404, 405, 429] : withKey(404, 405)) : undefined
    })
  )

const connect = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.constantFrom("127.0.0.1:443", "example.com:80", t.host, "[::1]:22").map((authority) =>
    build(t, { kind: "method", note: `CONNECT ${authority}`, method: "CONNECT", target: authority, framing: "doubtful" })
  )

const versions = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    fc.constant(build(t, { kind: "version", note: "HTTP/1.0", target: `${t.prefix}/pets?limit=1`, version: "HTTP/1.0", statuses: withKey(200), asksClose: true })),
    fc.constant(build(t, {
      kind: "version",
      note: "HTTP/1.0 with keep-alive",
      target: `${t.prefix}/pets?limit=1`,
      version: "HTTP/1.0",
      headerLines: ["Connection: keep-alive"],
      statuses: withKey(200)
    })),
    fc.constant(build(t, { kind: "version", note: "HTTP/1.0 without Host", target: `${t.prefix}/pets?limit=1`, version: "HTTP/1.0", host: false, asksClose: true })),
    fc.constantFrom("HTTP/1.2", "HTTP/2.0", "HTTP/3", "HTTP/1", "HTTP/01.1", "http/1.1", "HTTP/1.1 ", "HTTP /1.1", "HTTP/1.10", "HTTP/9.9", "HTTP/1.1x")
      .map((version) =>
        build(t, { kind: "version", note: `the version ${JSON.stringify(version)}`, target: `${t.prefix}/pets?limit=1`, version, framing: "doubtful" })
      ),
    fc.constant(build(t, { kind: "version", note: "a request line without a version", target: `${t.prefix}/pets?limit=1`, version: null, framing: "doubtful" }))
  )

const TLS_HELLO = "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + "\x00".repeat(32) + "\x00\x00\x20\xc0\x2b\xc0\x2f"
const H2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x12\x04\x00\x00\x00\x00\x00"

/** A byte no method can start with (controls, non-ASCII, punctuation), so the parser refuses at once. */
const notAMethodStart = fc.oneof(
  fc.integer({ min: 0x00, max: 0x08 }),
  fc.integer({ min: 0x0e, max: 0x1f }),
  fc.integer({ min: 0x7f, max: 0xff }),
  fc.constantFrom(0x20, 0x22, 0x28, 0x2f, 0x3c, 0x7b)
)

const garbageRequest = (note: string, text: string): RawRequest => ({
  kind: "garbage",
  note,
  bytes: latin1(text),
  method: "",
  framing: "broken",
  rateLimited: false,
  keyed: false,
  statuses: undefined,
  asksClose: false,
  incomplete: false,
  switches: false
})

/** Bytes that are no HTTP request, ended by an empty line so that no parser waits for more. */
const garbage: fc.Arbitrary<RawRequest> = fc.oneof(
  fc.tuple(notAMethodStart, fc.uint8Array({ maxLength: 600 })).map(([first, rest]) =>
    garbageRequest(`${rest.length + 1} random bytes`, String.fromCharCode(first) + Buffer.from(rest).toString("latin1") + "\r\n\r\n")
  ),
  fc.constant(garbageRequest("a TLS ClientHello", `${TLS_HELLO}\r\n\r\n`)),
  fc.constant(garbageRequest("the HTTP/2 connection preface", H2_PREFACE + "\r\n\r\n")),
  fc.constantFrom("{\"name\":\"Rex\"}", "<html>", "/v1/pets", " GET /v1/pets HTTP/1.1", "\x00\x00\x00\x00").map((text) =>
    garbageRequest(`the line ${JSON.stringify(text)}`, `${text}\r\n\r\n`)
  )
)

/** Every odd request line and garbage. @category arbitraries */
export const requestLine = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    { arbitrary: methods(t), weight: 4 },
    { arbitrary: connect(t), weight: 1 },
    { arbitrary: versions(t), weight: 3 },
    { arbitrary: garbage, weight: 4 }
  )
