/**
 * Header shapes: duplicate and invalid `Content-Length`, conflicting `Transfer-Encoding`, huge
 * and many headers, missing or repeated `Host`, `Expect`, obs-fold, bare CR or LF line ends,
 * control bytes, names that are not tokens, `Connection` options, odd `Idempotency-Key` values. Each is a whole request with the
 * framing RFC 9112 gives it and the answer docs/api.md fixes.
 */

import * as fc from "fast-check"
import * as Chunked from "./Chunked.js"
import type { RawRequest } from "./RawRequest.js"
import { build, type FuzzTarget, withKey } from "./Requests.js"

const PET = "{\"name\":\"Rex\",\"categoryId\":1}"
const JSON_TYPE = "application/json"

/** A POST of a valid pet whose length headers are replaced by `lines` (the body follows as given). */
const post = (t: FuzzTarget, note: string, lines: ReadonlyArray<string>, body: Uint8Array | string, rest: Partial<Parameters<typeof build>[1]>) =>
  build(t, {
    kind: "header shape",
    note,
    method: "POST",
    target: `${t.prefix}/pets`,
    contentType: JSON_TYPE,
    body,
    contentLength: false,
    headerLines: lines,
    ...rest
  })

const get = (t: FuzzTarget, note: string, rest: Partial<Parameters<typeof build>[1]>) =>
  build(t, { kind: "header shape", note, target: `${t.prefix}/pets?limit=1`, ...rest })

const lengthShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> => {
  const n = Buffer.byteLength(PET)
  return fc.oneof(
    fc.constant(post(t, "Content-Length twice, the same", [`Content-Length: ${n}`, `Content-Length: ${n}`], PET, { framing: "doubtful" })),
    fc.integer({ min: 1, max: 5 }).map((d) =>
      post(t, "Content-Length twice, different", [`Content-Length: ${n}`, `Content-Length: ${n + d}`], PET, { framing: "broken" })
    ),
    fc.constant(post(t, "Content-Length as a list", [`Content-Length: ${n}, ${n}`], PET, { framing: "doubtful" })),
    fc.constantFrom("-1", `+${n}`, "abc", `0x${n.toString(16)}`, `${n}e0`, `${n} ${n}`, `${n}.0`, "99999999999999999999999", "1_0", "")
      .map((v) => post(t, `Content-Length ${JSON.stringify(v)}`, [`Content-Length: ${v}`], PET, { framing: "broken" })),
    fc.constant(post(t, "Content-Length 0 on a POST", ["Content-Length: 0"], "", { statuses: withKey(400) })),
    fc.constant(get(t, "a body with Content-Length on a GET", { body: PET, contentType: JSON_TYPE, statuses: withKey(200) }))
  )
}

const transferShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.tuple(Chunked.chunkedStyle.map((s) => ({ ...s, extension: "", defect: undefined })), fc.constantFrom(
    ["Transfer-Encoding: chunked", "Content-Length: LENGTH"],
    ["Content-Length: LENGTH", "Transfer-Encoding: chunked"],
    ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"],
    ["Transfer-Encoding: chunked, chunked"],
    ["Transfer-Encoding: gzip, chunked"],
    ["Transfer-Encoding: identity, chunked"],
    ["Transfer-Encoding: chunked, gzip"],
    ["Transfer-Encoding: gzip"],
    ["Transfer-Encoding: identity"],
    ["Transfer-Encoding: chunked;q=1"],
    ["Transfer-Encoding: xchunked"],
    ["Transfer-Encoding: chunked", "Transfer-Encoding: gzip"],
    ["Transfer-Encoding:\tchunked"],
    ["Transfer-Encoding: CHUNKED"],
    ["Transfer-Encoding : chunked"]
  )).map(([style, lines]) => {
    const body = Chunked.encode(Buffer.from(PET), style)
    const joined = lines.join(" | ")
    // Chunked last (in any case, with OWS) is the body's framing; a final coding other than chunked
    // is an error for a request (RFC 9112 6.3); Content-Length next to it, or a coding the server
    // does not know, may be refused or ignored.
    const framing = joined === "Transfer-Encoding: CHUNKED" || joined === "Transfer-Encoding:\tchunked"
      ? "valid" as const
      : /chunked, gzip|: gzip$|: identity$|xchunked|Encoding : |chunked \| Transfer-Encoding: gzip/.test(joined)
      ? "broken" as const
      : "doubtful" as const
    return post(t, `${joined} (${Chunked.describe(style)})`, lines.map((l) => l.replace("LENGTH", String(body.length))), body, {
      framing,
      ...(framing === "valid" ? { statuses: withKey(201) } : {})
    })
  })

const hostShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    fc.constant(get(t, "no Host", { host: false, statuses: [400] })),
    fc.constant(get(t, "Host twice", { host: `Host: ${t.host}\r\nHost: other.example`, framing: "doubtful" })),
    fc.constant(get(t, "an empty Host", { host: "Host:", framing: "doubtful" })),
    fc.constantFrom("a b", "x/y", "[::1", "\x7f", "@", "x:abc").map((h) =>
      get(t, `Host ${JSON.stringify(h)}`, { host: `Host: ${h}`, framing: "doubtful" })
    )
  )

const expectShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    fc.constantFrom("100-continue", "100-Continue", "100-CONTINUE").map((v) =>
      post(t, `Expect: ${v}`, [`Expect: ${v}`, `Content-Length: ${Buffer.byteLength(PET)}`], PET, { statuses: withKey(201) })
    ),
    fc.constantFrom("the-unexpected", "101-continue", "100-continue-ish", "", "continue").map((v) =>
      get(t, `Expect: ${JSON.stringify(v)}`, { headerLines: [`Expect: ${v}`], statuses: [417], rateLimited: false })
    )
  )

const lineShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    fc.constantFrom(" folded", "\tfolded", "  ").map((fold) =>
      get(t, `obs-fold ${JSON.stringify(fold)}`, { headerLines: ["X-Folded: a", fold], framing: "doubtful" })
    ),
    fc.constant(get(t, "a space before the colon", { headerLines: ["X-Spaced : a"], framing: "broken" })),
    fc.constant(get(t, "line ends of bare LF", { lineEnd: "\n", framing: "doubtful" })),
    fc.constant(get(t, "a bare CR inside a value", { headerLines: ["X-Cr: a\rb"], framing: "doubtful" })),
    fc.constantFrom("\x00", "\x01", "\x08", "\x0b", "\x1f", "\x7f").map((c) =>
      get(t, `the control byte ${JSON.stringify(c)} in a value`, { headerLines: [`X-Ctl: a${c}b`], framing: "doubtful" })
    ),
    fc.constantFrom("\xff", "\xc3\xa9", "\x80\x80", "\xed\xa0\x80").map((c) =>
      get(t, `the bytes ${JSON.stringify(c)} (obs-text) in a value`, { headerLines: [`X-Text: a${c}b`], statuses: withKey(200) })
    ),
    fc.constantFrom("NoColon", ": empty name", "X Space: a", "X(Paren): a", "X@At: a", "X\x01: a", "X\xff: a", "\x00: a").map((line) =>
      get(t, `the header line ${JSON.stringify(line)}`, { headerLines: [line], framing: "broken" })
    ),
    fc.constantFrom("", " ", "\t").map((ws) => get(t, `OWS ${JSON.stringify(ws)} around values`, {
      host: `Host:${ws}${t.host}${ws}`,
      auth: { line: `Authorization:${ws}Bearer ${t.key}${ws}` },
      statuses: withKey(200)
    }))
  )

const sizeShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    fc.integer({ min: 1, max: 8_000 }).map((n) => get(t, `a ${n}-byte header`, { headerLines: [`X-Big: ${"a".repeat(n)}`], statuses: withKey(200) })),
    fc.integer({ min: 1, max: 150 }).map((n) =>
      get(t, `${n} more headers`, { headerLines: Array.from({ length: n }, (_, i) => `X-H${i}: ${i}`), statuses: withKey(200) })
    ),
    fc.integer({ min: 1, max: 3_000 }).map((n) => get(t, `a ${n}-byte header name`, { headerLines: [`X-${"n".repeat(n)}: 1`], statuses: withKey(200) })),
    // Over the server's header limit (16 KiB for node): refused, never a crash or a reset.
    fc.integer({ min: 17_000, max: 80_000 }).map((n) => get(t, `a ${n}-byte header`, { headerLines: [`X-Huge: ${"a".repeat(n)}`], framing: "broken" })),
    // 12 bytes of name and value each: over 16 KiB from 1,366 on (node counts names and values).
    fc.integer({ min: 1_500, max: 4_000 }).map((n) =>
      get(t, `${n} headers of 16 bytes`, { headerLines: Array.from({ length: n }, (_, i) => `X-${String(i).padStart(5, "0")}: 12345`), framing: "broken" })
    )
  )

const connectionShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    fc.constantFrom("close", "Close", "keep-alive, close", "close, keep-alive").map((v) =>
      get(t, `Connection: ${v}`, { headerLines: [`Connection: ${v}`], statuses: withKey(200), asksClose: true })
    ),
    fc.constantFrom("keep-alive", "Keep-Alive", "x-custom, keep-alive", "").map((v) =>
      get(t, `Connection: ${v}`, { headerLines: [`Connection: ${v}`], statuses: withKey(200) })
    ),
    fc.constantFrom(["Connection: Upgrade", "Upgrade: websocket"], ["Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAAQAAP__"])
      .map((lines) => get(t, lines.join(", "), { headerLines: lines, framing: "doubtful", switches: true })),
    fc.constant(get(t, "X-Forwarded-For from the client", { headerLines: ["X-Forwarded-For: 203.0.113.9, 10.0.0.1"], statuses: withKey(200) }))
  )

const authShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    fc.constantFrom("", "Basic dXNlcjpwYXNzd29yZA==", "Bearer", "Bearer ", `Bearerx ${t.key}`, `Bearer  ${t.key}`, `Bearer ${t.key}x`,
      "Bearer psk_live_00000000000000000000000000000000", `Bearer ${t.key} extra`, "Bearer \xff\xfe")
      .map((v) => get(t, `Authorization ${JSON.stringify(v.replace(t.key, "<key>"))}`, { auth: { line: `Authorization: ${v}` }, statuses: [401, 429] })),
    fc.constant(get(t, "no Authorization", { auth: "none", statuses: [401, 429] })),
    fc.constantFrom("bearer", "BEARER", "bEaReR").map((s) =>
      get(t, `the scheme written ${s}`, { auth: { line: `Authorization: ${s} ${t.key}` }, statuses: withKey(200) })
    ),
    fc.constant(get(t, "Authorization twice", {
      auth: { line: `Authorization: Bearer ${t.key}\r\nAuthorization: Bearer psk_live_00000000000000000000000000000000` },
      framing: "doubtful"
    }))
  )

/** A keyed create of a valid pet with the `Idempotency-Key` line(s) `lines`. */
const keyed = (t: FuzzTarget, note: string, lines: ReadonlyArray<string>, statuses: ReadonlyArray<number>) =>
  build(t, { kind: "header shape", note, method: "POST", target: `${t.prefix}/pets`, contentType: JSON_TYPE, body: PET, headerLines: lines, statuses })

/** Odd `Idempotency-Key` shapes: empty, too long, quoted oddly, non-ASCII, tabs, repeated; and fresh valid keys in both forms. */
const idempotencyKeyShapes = (t: FuzzTarget): fc.Arbitrary<RawRequest> => {
  const fresh = fc.uuid()
  return fc.oneof(
    fc.constantFrom("", "\"\"", "\"", "\"open", "a\"b", "\"a\\nb\"", "\"a\"b\"", "a\tb", "cl\xe9", "\xff\xfe", "k".repeat(256), `"${"k".repeat(256)}"`)
      .map((v) => keyed(t, `Idempotency-Key ${JSON.stringify(v.length > 40 ? `${v.slice(0, 12)}…(${v.length})` : v)}`, [`Idempotency-Key: ${v}`], withKey(400))),
    fresh.map((k) => keyed(t, "a new Idempotency-Key, bare", [`Idempotency-Key: ${k}`], withKey(201))),
    fresh.map((k) => keyed(t, "a new Idempotency-Key, quoted", [`Idempotency-Key: "${k}"`], withKey(201))),
    fresh.map((k) => keyed(t, "a new Idempotency-Key of 255 characters", [`Idempotency-Key: ${k}${"k".repeat(255 - k.length)}`], withKey(201))),
    // Two lines are one value joined with ", " (RFC 9110 5.3): a key of its own, or refused when too long.
    fresh.map((k) => keyed(t, "Idempotency-Key twice", [`Idempotency-Key: ${k}`, `Idempotency-Key: ${k}`], withKey(201, 400))),
    fresh.map((k) => keyed(t, "Idempotency-Key with spaces around it", [`Idempotency-Key:   ${k}   `], withKey(201)))
  )
}

/** Every header shape. @category arbitraries */
export const headerShape = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    { arbitrary: lengthShapes(t), weight: 3 },
    { arbitrary: transferShapes(t), weight: 3 },
    { arbitrary: hostShapes(t), weight: 2 },
    { arbitrary: expectShapes(t), weight: 2 },
    { arbitrary: lineShapes(t), weight: 4 },
    { arbitrary: sizeShapes(t), weight: 2 },
    { arbitrary: connectionShapes(t), weight: 2 },
    { arbitrary: authShapes(t), weight: 3 },
    { arbitrary: idempotencyKeyShapes(t), weight: 2 }
  )
