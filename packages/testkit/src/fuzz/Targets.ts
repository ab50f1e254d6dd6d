/**
 * Odd request targets: percent-encoding (valid, invalid, of NUL and of invalid UTF-8), dot
 * segments, empty segments, very long paths and queries, fragments, absolute and asterisk forms,
 * and raw bytes a request line may not carry.
 */

import * as fc from "fast-check"
import type { Framing } from "./RawRequest.js"

/** A request target, as text whose characters are the bytes sent. @category models */
export interface OddTarget {
  readonly note: string
  readonly target: string
  /** `broken` when the bytes cannot be in a request line (controls, spaces, non-ASCII). */
  readonly framing: Framing
}

const FIXED = [
  "/", "/v1", "/v1/", "/v2/pets", "/V1/PETS", "/v1/Pets", "/v1/pets/", "//v1/pets", "/v1//pets", "/v1/./pets", "/v1/../v1/pets",
  "/v1/pets/..", "/v1/pets/.", "/v1/pets/%2e%2e", "/v1/pets/%2E%2E/%2E%2E/admin/v1/accounts", "/%76%31/pets", "/v1%2Fpets",
  "/v1/pets%00", "/v1/pets/%", "/v1/pets/%zz", "/v1/pets/%2", "/v1/pets/%C0%AF", "/v1/pets/%FF", "/v1/pets/%ED%A0%80",
  "/v1/pets/%F4%90%80%80", "/v1/pets/1%20", "/v1/pets/;x", "/v1/pets;jsessionid=1", "/v1/pets?", "/v1/pets??", "/v1/pets?&&",
  "/v1/pets?=", "/v1/pets?limit", "/v1/pets?limit=", "/v1/pets?limit=%FF", "/v1/pets?limit=%", "/v1/pets?status=%00",
  "/v1/pets?status=%E2%82", "/v1/pets?limit=1&limit=2", "/v1/pets?cursor=%", "/v1/pets?cursor=..", "/v1/pets#frag",
  "/v1/pets?#", "/v1/pets/1#x", "/v1/pets/0", "/v1/pets/-1", "/v1/pets/1.5", "/v1/pets/1e3", "/v1/pets/0x1",
  "/v1/pets/9007199254740993", "/v1/pets/99999999999999999999999999", "/v1/messages/", "/v1/messages/%00",
  "/v1/messages/..%2F..%2Fadmin", "/v1/openapi.json/", "/v1/openapi.json?x=1", "/v1/openapi.json;x", "/docs/", "/docs?x",
  "/docs/../v1/pets", "/admin", "/admin/", "/admin/v1", "/admin/v1/../../v1/pets", "/admin/v1/accounts/%00/keys",
  "/ADMIN/v1/accounts", "/v1/store/orders", "/v1/pets/1/2/3", "/.well-known/security.txt", "/%", "/%%", "/~", "/v1/pets/~1",
  "/healthz", "/readyz", "/healthz/", "/readyz?x", "/healthz/../v1/pets", "/readyz/../v1/pets", "/healthz%2F..%2Fv1%2Fpets",
  "*", "http://x/v1/pets", "http://127.0.0.1/v1/openapi.json", "https://example.com/admin/v1/accounts", "HTTP://X/v1/pets"
]

const PCHAR = "abcXYZ019-._~!$&'()*+,;=:@%"

/** Percent-escapes of any byte, including NUL, controls and bytes of invalid UTF-8. */
const escape = fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`)

const segment = fc.array(fc.oneof({ arbitrary: fc.constantFrom(...PCHAR), weight: 4 }, { arbitrary: escape, weight: 1 }), { maxLength: 12 })
  .map((parts) => parts.join(""))

/** Targets a request line may carry (unreserved, sub-delims, escapes) in any arrangement. */
const generated: fc.Arbitrary<OddTarget> = fc.tuple(
  fc.constantFrom("/v1/pets", "/v1/messages", "/v1", "", "/admin/v1/accounts"),
  fc.array(segment, { maxLength: 6 }),
  fc.option(fc.array(fc.tuple(segment, segment), { maxLength: 6 }), { nil: undefined })
).map(([base, segments, query]) => {
  const path = [base, ...segments].join("/") || "/"
  const target = `${path.startsWith("/") ? path : `/${path}`}${query === undefined ? "" : `?${query.map(([k, v]) => `${k}=${v}`).join("&")}`}`
  return { note: `generated target ${target.length > 80 ? `${target.slice(0, 80)}…` : target}`, target, framing: "valid" as const }
})

/** Long targets: a long id, many segments, many parameters, long `..` chains (kept under 12 KiB). */
const long: fc.Arbitrary<OddTarget> = fc.tuple(fc.integer({ min: 1_000, max: 12_000 }), fc.constantFrom("id", "segments", "query", "dots"))
  .map(([n, shape]) => {
    const target = shape === "id"
      ? `/v1/pets/${"9".repeat(n)}`
      : shape === "segments"
      ? `/v1${"/a".repeat(n / 2)}`
      : shape === "query"
      ? `/v1/pets?${"x=1&".repeat(n / 4)}limit=5`
      : `/v1/pets/${"../".repeat(n / 3)}admin`
    return { note: `a ${target.length}-byte target (${shape})`, target, framing: "valid" as const }
  })

/** Bytes a request target may not contain: the server must refuse the request line. */
const forbidden: fc.Arbitrary<OddTarget> = fc.tuple(
  fc.constantFrom("\x00", "\x01", "\x1b", "\x7f", " x", "\t", "\xff", "\xc3\xa9", "\x80", "\"", "<>", "\\", "{}", "|", "^", "`"),
  fc.constantFrom("/v1/pets/", "/v1/pets?status=", "/")
).map(([bad, base]) => {
  // Some of these (`"`, `\`, `{}` ...) are only "unwise": a server may take them; the rest break the line.
  const framing: Framing = /^[\x00-\x20\x7f-\xff]/.test(bad) ? "broken" : "doubtful"
  return { note: `the target ${JSON.stringify(base + bad)}`, target: base + bad, framing }
})

/** Every odd target. @category arbitraries */
export const oddTarget: fc.Arbitrary<OddTarget> = fc.oneof(
  { arbitrary: fc.constantFrom(...FIXED).map((target) => ({ note: `the target ${target}`, target, framing: "valid" as const })), weight: 4 },
  { arbitrary: generated, weight: 3 },
  { arbitrary: long, weight: 1 },
  { arbitrary: forbidden, weight: 2 }
)
