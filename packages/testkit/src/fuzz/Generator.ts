/**
 * The seeded generator of raw HTTP/1.1 exchanges: valid requests with the fuzzer's key mixed with
 * every hostile class (bodies, targets, header shapes, chunked bodies, request lines, garbage,
 * oversize bodies), grouped into connections sent pipelined or one by one, cut into fragments,
 * kept alive, closed by `Connection: close` or half-closed by the client.
 *
 * A connection's script depends only on the run's seed and the connection's index, so any
 * connection of a run can be generated again (and shrunk) on its own.
 */

import * as fc from "fast-check"
import * as Invalid from "../arbitraries/Invalid.js"
import * as Valid from "../arbitraries/Valid.js"
import * as Chunked from "./Chunked.js"
import * as HeaderShapes from "./HeaderShapes.js"
import * as Payloads from "./Payloads.js"
import type { ConnectionScript, RawRequest } from "./RawRequest.js"
import * as RequestLines from "./RequestLines.js"
import { build, type FuzzTarget, type RequestSpec, withKey } from "./Requests.js"
import * as Targets from "./Targets.js"

/** Headers any client may add; the answer does not depend on them. */
const benign = fc.subarray(["User-Agent: petstore-fuzz", "Accept: */*", "Accept-Encoding: gzip, br", "X-Request-Id: 7f3c", "Cache-Control: no-cache"])

const valid = (t: FuzzTarget): fc.Arbitrary<RawRequest> => {
  const request = (spec: fc.Arbitrary<Omit<RequestSpec, "kind">>) =>
    fc.tuple(spec, benign, fc.boolean()).map(([s, headerLines, lowerCaseNames]) =>
      build(t, { ...s, kind: "valid", headerLines: [...(s.headerLines ?? []), ...headerLines], lowerCaseNames })
    )
  return fc.oneof(
    {
      arbitrary: request(Valid.listQuery.map((q) => {
        const query = Object.entries(q).map(([k, v]) => `${k}=${v}`).join("&")
        return { note: `GET pets?${query}`, target: `${t.prefix}/pets${query === "" ? "" : `?${query}`}`, statuses: withKey(200) }
      })),
      weight: 4
    },
    {
      arbitrary: request(fc.integer({ min: 1, max: 200 }).map((id) => ({ note: `GET pet ${id}`, target: `${t.prefix}/pets/${id}`, statuses: withKey(200, 404) }))),
      weight: 2
    },
    {
      arbitrary: request(Payloads.valid.map((p) => ({
        note: p.note,
        method: "POST",
        target: `${t.prefix}/${p.operation}`,
        contentType: p.contentType,
        body: p.body,
        statuses: withKey(...(p.statuses ?? []))
      }))),
      weight: 4
    },
    {
      arbitrary: request(fc.constantFrom("GET", "HEAD").map((method) => ({ note: `${method} pets`, method, target: `${t.prefix}/pets?limit=2`, statuses: withKey(200) }))),
      weight: 1
    },
    {
      arbitrary: request(fc.tuple(fc.constantFrom("/v1/openapi.json", "/docs"), fc.constantFrom("GET", "HEAD"), fc.boolean()).map(([path, method, key]) => ({
        note: `${method} ${path}`,
        method,
        target: path,
        auth: key ? "key" as const : "none" as const,
        statuses: [200]
      }))),
      weight: 1
    },
    {
      arbitrary: request(fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/).map((id) => ({ note: `GET message ${id}`, target: `${t.prefix}/messages/${id}`, statuses: withKey(400, 404) }))),
      weight: 1
    },
    {
      arbitrary: request(Invalid.invalidListQuery.map((q) => ({ note: `${q.defect}: ${q.description}`, target: `${t.prefix}/pets?${q.query}`, statuses: withKey(400) }))),
      weight: 2
    },
    {
      arbitrary: request(Invalid.invalidPetId.map((p) => ({ note: `${p.defect}: pet id ${p.segment}`, target: `${t.prefix}/pets/${p.segment}`, statuses: withKey(400) }))),
      weight: 1
    }
  )
}

/** A hostile body, sent with its length or chunked (possibly malformed), possibly after `Expect: 100-continue`. */
const hostileBody = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.tuple(Payloads.hostile, fc.option(Chunked.chunkedStyle, { freq: 3 }), fc.boolean(), fc.integer({ min: 0, max: 9 }))
    .map(([p, style, lowerCaseNames, expectRoll]) => {
      const expect = expectRoll === 0 ? ["Expect: 100-continue"] : []
      const statuses = p.statuses === undefined ? undefined : withKey(...p.statuses)
      const request = { kind: p.kind, method: "POST", target: `${t.prefix}/${p.operation}`, contentType: p.contentType, lowerCaseNames }
      if (style === null) return build(t, { ...request, note: p.note, body: p.body, headerLines: expect, statuses })
      // An empty body has no chunk to carry a defect: a single space stands for it (still not JSON).
      const body = Chunked.encode(p.body.length === 0 ? Buffer.from(" ") : p.body, style)
      const framing = Chunked.framing(style)
      return build(t, {
        ...request,
        note: `${p.note}, chunked (${Chunked.describe(style)})`,
        body,
        contentLength: false,
        headerLines: ["Transfer-Encoding: chunked", ...expect],
        framing,
        statuses: framing === "valid" ? statuses : undefined
      })
    })

const LIMIT = 64 * 1024

/** Bodies around and far over 64 KiB: sent with their length, chunked, or only declared. */
const oversize = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.tuple(fc.integer({ min: -3, max: 200_000 }), fc.constantFrom("length", "length", "chunked", "declared", "declared with Expect"))
    .map(([over, how]) => {
      const size = LIMIT + (how.startsWith("declared") ? Math.max(1, over) : over)
      const head = "{\"name\":\"Rex\",\"categoryId\":1,\"padding\":\""
      const body = `${head}${"x".repeat(size - head.length - 2)}"}`
      const statuses = size > LIMIT ? withKey(413) : withKey(201)
      const note = `a ${size}-byte body (${how})`
      const request = { kind: "oversize", note, method: "POST", target: `${t.prefix}/pets`, contentType: "application/json", statuses }
      if (how === "length") return build(t, { ...request, body })
      if (how === "chunked") {
        const style: Chunked.ChunkedStyle = { sizes: [16_384], upperCase: false, zeroPad: 0, extension: "", trailers: [], defect: undefined }
        return build(t, { ...request, body: Chunked.encode(Buffer.from(body), style), contentLength: false, headerLines: ["Transfer-Encoding: chunked"] })
      }
      // Only the head is sent: the server must refuse from Content-Length, before any body arrives.
      return build(t, {
        ...request,
        contentLength: String(size),
        headerLines: how === "declared" ? [] : ["Expect: 100-continue"],
        incomplete: true
      })
    })

/**
 * Odd targets, with the key, by a few methods. HEAD only with a target a server must parse: the
 * answer to a request it cannot parse may carry a body whatever the method.
 */
const oddTarget = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.tuple(Targets.oddTarget, fc.constantFrom("GET", "GET", "HEAD", "POST", "DELETE")).map(([target, chosen]) => {
    const method = chosen === "HEAD" && target.framing !== "valid" ? "GET" : chosen
    return build(t, {
      kind: "target",
      note: `${method} ${target.note}`,
      method,
      target: target.target,
      ...(method === "POST" ? { body: "{\"name\":\"Rex\",\"categoryId\":1}", contentType: "application/json" } : {}),
      framing: target.framing
    })
  })

/** The admin API with tokens that are not the admin token: 401 (404 when it is off), or 429 past its limit. */
const admin = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.tuple(
    fc.constantFrom("/admin/v1/accounts", "/admin/v1/keys/key_x/rotate", "/admin/v1/accounts/acc_x/keys", "/admin/v1/nowhere"),
    fc.constantFrom("POST", "GET", "DELETE"),
    fc.constantFrom("none", "Bearer wrong-admin-token-0123456789", `Bearer ${t.key}`, "Basic YWRtaW46YWRtaW4=")
  ).map(([path, method, auth]) =>
    build(t, {
      kind: "admin",
      note: `${method} ${path} with ${auth === "none" ? "no token" : auth.replace(t.key, "<key>")}`,
      method,
      target: path,
      auth: auth === "none" ? "none" : { line: `Authorization: ${auth}` },
      ...(method === "POST" ? { body: "{\"plan\":\"enterprise\"}", contentType: "application/json" } : {}),
      statuses: [401, 404, 429]
    })
  )

/** One request of any class. @category arbitraries */
export const request = (t: FuzzTarget): fc.Arbitrary<RawRequest> =>
  fc.oneof(
    { arbitrary: valid(t), weight: 30 },
    { arbitrary: hostileBody(t), weight: 18 },
    { arbitrary: oddTarget(t), weight: 10 },
    { arbitrary: HeaderShapes.headerShape(t), weight: 16 },
    { arbitrary: RequestLines.requestLine(t), weight: 9 },
    { arbitrary: oversize(t), weight: 2 },
    { arbitrary: admin(t), weight: 2 }
  )

/**
 * Nothing can follow a request whose body is never sent (the server would read the next request
 * as that body), and the client then keeps its side open.
 */
const normalize = (script: ConnectionScript): ConnectionScript => {
  const cut = script.requests.findIndex((r) => r.incomplete)
  return cut === -1 ? script : { ...script, requests: script.requests.slice(0, cut + 1), halfClose: false }
}

/** One connection's requests and how they are sent. @category arbitraries */
export const connection = (t: FuzzTarget): fc.Arbitrary<ConnectionScript> =>
  fc.record({
    requests: fc.array(request(t), { minLength: 1, maxLength: 6 }),
    delivery: fc.constantFrom("pipelined" as const, "pipelined" as const, "sequential" as const),
    cuts: fc.array(fc.nat({ max: 1 << 20 }), { maxLength: 5 }),
    pauseMs: fc.constantFrom(0, 0, 0, 1, 4),
    halfClose: fc.integer({ min: 0, max: 5 }).map((n) => n === 5)
  }).map(normalize)

/** The seed of connection `index` of a run (a 32-bit mix of both). @category constructors */
export const connectionSeed = (runSeed: number, index: number): number => {
  let h = (runSeed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) | 0
}

/** The script of connection `index` of the run with `runSeed`, from `connection(target)`. @category constructors */
export const script = (arbitrary: fc.Arbitrary<ConnectionScript>, runSeed: number, index: number): ConnectionScript =>
  fc.sample(arbitrary, { seed: connectionSeed(runSeed, index), numRuns: 1 })[0]!
