/**
 * The API reference at `/docs` over real HTTP: the page (small, relative addresses only, Scalar's
 * settings that keep it offline), the bundle it loads (versioned URL, cached for a year, read on the
 * first request; brotli or gzip as asked, tagged, 304, limited per address), `/favicon.ico` without
 * a key. What a client that does not read costs the server is ApiReferenceBackpressure.test.ts; the
 * page running in a browser is packages/server/test/ApiReferenceBrowser.test.ts.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, Effect, Logger } from "effect"
import * as Zlib from "node:zlib"
import { Api, PUBLIC_PREFIX } from "../src/Api.js"
import * as ApiReference from "../src/internal/openapi/apiReference.js"
import * as ScalarBundle from "../src/internal/openapi/scalarBundle.js"
import * as OpenApiDocument from "../src/OpenApiDocument.js"
import { request } from "./internals/support/Stages.js"
import { expectError, expectStatus, expectUnauthorized } from "./support/Expectations.js"
import { send } from "./support/Hosts.js"
import { TestServer } from "./support/TestServer.js"

const BUNDLE = `/docs?asset=scalar-${ScalarBundle.version()}.js`

/** The bundle over its own connection, from `from`, its bytes as sent (not decoded). */
const getBundle = (server: TestServer["Service"], headers: Record<string, string> = {}, from = "127.0.0.1") =>
  Effect.promise(() => send(server.url + BUNDLE, { headers, from }))

/** The settings the page hands to Scalar (the JSON literal in its inline script). */
const settingsOf = (html: string): Record<string, unknown> =>
  JSON.parse(/var settings = (\{.*\});/.exec(html)![1]!) as Record<string, unknown>

layer(TestServer.layer())("ApiReference", (it) => {
  it.effect("`/docs` is a small page, without a key, that loads the bundle and the document relative to itself", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const reply = expectStatus(yield* server.get("/docs"), 200)
      expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(reply.headers.get("cache-control")).toBe("no-cache")
      expect(reply.headers.get("content-security-policy")).toMatch(/^default-src 'self'; /)
      expect(reply.text.length).toBeLessThan(4096)
      // Relative addresses only, so the same page works under a host's mount; no other origin at all.
      expect(reply.text).toContain(`<script src="${BUNDLE.slice(1)}"></script>`)
      expect(reply.text).toContain(`new URL("${PUBLIC_PREFIX.slice(1)}/openapi.json", location.href)`)
      expect(reply.text).toContain(`<link rel="icon" href="data:,">`)
      const settings = settingsOf(reply.text)
      expect(settings).toMatchObject({ withDefaultFonts: false, telemetry: false, showToolbar: "never", persistAuth: false })
      expect(settings.servers).toEqual([{ url: "http://127.0.0.1", description: "Production" }])
      expect(reply.text.replace(/"url":"http:\/\/127\.0\.0\.1"/, "")).not.toMatch(/https?:\/\//)
      // The page and its bundle answer HEAD as GET, without a body.
      const head = expectStatus(yield* server.request("HEAD", "/docs"), 200)
      expect(head.text).toBe("")
      expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8")
    }))

  it.effect("the bundle is Scalar's, at a versioned URL cached for a year, the same bytes each time", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const identity = { headers: { "accept-encoding": "identity" } }
      const first = expectStatus(yield* server.request("GET", BUNDLE, identity), 200)
      expect(first.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      expect(first.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(first.text).toContain("@scalar/api-reference@")
      expect(first.text).toContain("createApiReference")
      expect(first.text.length).toBeGreaterThan(1_000_000)
      // No source map the server could not serve.
      expect(first.text).not.toContain("sourceMappingURL")
      const again = expectStatus(yield* server.get(BUNDLE), 200)
      expect(again.text).toBe(first.text)
      const head = expectStatus(yield* server.request("HEAD", BUNDLE, identity), 200)
      expect(head.text).toBe("")
      expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(first.text)))
      expect(head.headers.get("etag")).toBe(first.headers.get("etag"))
    }))

  it.effect("the bundle is brotli or gzip as `Accept-Encoding` weighs them, each decoding to the same bytes, with its own ETag", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const identity = yield* getBundle(server)
      expect(identity.headers["content-encoding"]).toBeUndefined()
      expect(identity.headers.vary).toBe("Accept-Encoding")
      const cases = [
        { acceptEncoding: "gzip, deflate, br, zstd", encoding: "br" },
        { acceptEncoding: "gzip", encoding: "gzip" },
        { acceptEncoding: "br;q=0.5, gzip;q=0.9", encoding: "gzip" },
        { acceptEncoding: "br;q=0, *", encoding: "gzip" },
        { acceptEncoding: "deflate, identity", encoding: undefined },
        { acceptEncoding: "br;q=0, gzip;q=0", encoding: undefined }
      ] as const
      const tags = new Set([identity.headers.etag])
      for (const { acceptEncoding, encoding } of cases) {
        const reply = yield* getBundle(server, { "accept-encoding": acceptEncoding })
        expect({ acceptEncoding, status: reply.status, encoding: reply.headers["content-encoding"], vary: reply.headers.vary })
          .toEqual({ acceptEncoding, status: 200, encoding, vary: "Accept-Encoding" })
        expect(reply.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
        expect(reply.headers["content-length"]).toBe(String(reply.bytes.length))
        const decoded = encoding === "br" ? Zlib.brotliDecompressSync(reply.bytes) : encoding === "gzip" ? Zlib.gunzipSync(reply.bytes) : reply.bytes
        expect(decoded.equals(identity.bytes)).toBe(true)
        if (encoding !== undefined) expect(reply.bytes.length).toBeLessThan(identity.bytes.length / 3)
        tags.add(reply.headers.etag)
      }
      // One strong tag per representation.
      expect([...tags].every((tag) => /^"[\w-]{22}"$/.test(tag!))).toBe(true)
      expect(tags.size).toBe(3)
    }))

  it.effect("`If-None-Match` naming the representation's tag is 304 without a body; another tag is the 200", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (const acceptEncoding of ["br", "gzip", "identity"]) {
        const first = yield* getBundle(server, { "accept-encoding": acceptEncoding })
        const etag = first.headers.etag!
        for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
          const again = yield* getBundle(server, { "accept-encoding": acceptEncoding, "if-none-match": ifNoneMatch })
          expect({ acceptEncoding, ifNoneMatch, status: again.status, length: again.bytes.length, etag: again.headers.etag })
            .toEqual({ acceptEncoding, ifNoneMatch, status: 304, length: 0, etag })
          expect(again.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
          expect(again.headers.vary).toBe("Accept-Encoding")
        }
        const other = yield* getBundle(server, { "accept-encoding": acceptEncoding, "if-none-match": "\"other\"" })
        expect(other.status).toBe(200)
        expect(other.bytes.equals(first.bytes)).toBe(true)
      }
      // The identity's tag does not stand for the brotli bytes.
      const identityTag = (yield* getBundle(server)).headers.etag!
      expect((yield* getBundle(server, { "accept-encoding": "br", "if-none-match": identityTag })).status).toBe(200)
    }))

  it.effect("the bundle is limited per client address: past `assetsPerMinute`, 429 with `Retry-After` until the bucket refills", () =>
    Effect.gen(function*() {
      const server = yield* TestServer.start({ assetsPerMinute: 3, frozenAt: Date.UTC(2030, 0, 1) })
      for (let i = 0; i < 3; i++) expect((yield* getBundle(server, { "accept-encoding": "br" })).status).toBe(200)
      const limited = yield* getBundle(server, { "accept-encoding": "br" })
      expect(limited.status).toBe(429)
      expect(limited.headers["retry-after"]).toBe("20")
      expect(limited.body).toMatchObject({ code: "rate_limited", status: 429 })
      // A 304 and a bundle of another version count too; the page itself does not.
      expect((yield* getBundle(server, { "if-none-match": "*" })).status).toBe(429)
      expectStatus(yield* server.get("/docs"), 200)
      // Another address has its own bucket.
      expect((yield* getBundle(server, {}, "127.0.0.2")).status).toBe(200)
      server.clock.adjust(20_000)
      expect((yield* getBundle(server, { "accept-encoding": "br" })).status).toBe(200)
      expect((yield* getBundle(server, { "accept-encoding": "br" })).status).toBe(429)
    }))

  it.effect("a bundle of another version is 404 with an Error body; other queries give the page", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      expectError(yield* server.get("/docs?asset=scalar-0.0.0.js"), 404, "not_found")
      expect(expectStatus(yield* server.get("/docs?x=1"), 200).headers.get("content-type")).toMatch(/^text\/html/)
    }))

  it.effect("`/favicon.ico` answers 204 without a key (GET and HEAD); other methods still need one", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (const method of ["GET", "HEAD"]) {
        const reply = expectStatus(yield* server.request(method, "/favicon.ico"), 204)
        expect(reply.text).toBe("")
        expect(reply.headers.get("cache-control")).toBe("public, max-age=604800")
      }
      expectUnauthorized(yield* server.request("POST", "/favicon.ico", { json: {} }))
    }))
})

/** The parts of `ApiReference.make` these tests do not vary. */
const limitOptions = { clientAddress: () => "192.0.2.1", clock: Clock.Clock.defaultValue() }

describe("ApiReference.make", () => {
  const doc = OpenApiDocument.make({ api: Api, servers: [{ url: "https://api.example.com", description: "Production" }] })

  it("keeps text from the document inert: nothing in a server or the title can close the script or add markup", () => {
    const hostile = "</script><script>alert(1)</script>"
    const reference = ApiReference.make({
      document: () => ({ ...doc, info: { ...doc.info, title: `Pets ${hostile}` }, servers: [{ url: `https://x.test/${hostile}`, description: hostile }] }),
      openApiPath: "/v1/openapi.json",
      ...limitOptions
    })
    expect(reference.html().match(/<script/g)).toHaveLength(2)
    expect(reference.html().match(/<\/script>/g)).toHaveLength(2)
    expect(settingsOf(reference.html()).servers).toEqual([{ url: `https://x.test/${hostile}`, description: hostile }])
    expect(reference.html()).toContain("<title>Pets &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; 1.1.0 · API reference</title>")
  })

  it.effect("asks for the document at the page's first request, not before, and once only", () =>
    Effect.gen(function*() {
      let built = 0
      const reference = ApiReference.make({ document: () => (built++, doc), openApiPath: "/v1/openapi.json", ...limitOptions })
      expect(built).toBe(0)
      for (let i = 0; i < 2; i++) {
        const page = yield* reference.answer(request({ url: "/docs" }))
        expect(page.status).toBe(200)
        expect(page.body).toContain("API reference</title>")
      }
      expect(built).toBe(1)
    }))
})

describe("ApiReference bundle", () => {
  const doc = OpenApiDocument.make({ api: Api, servers: [] })

  it.effect("a bundle that cannot be read is a 500 Error body, and the next request reads it again", () =>
    Effect.gen(function*() {
      let reads = 0
      const reference = ApiReference.make({
        document: () => doc,
        openApiPath: "/v1/openapi.json",
        ...limitOptions,
        readBundle: () => ++reads === 1 ? Promise.reject(new Error("gone")) : Promise.resolve("bundle();")
      })
      const bundle = request({ url: `/docs?${reference.bundleQuery}` })
      const failed = yield* reference.answer(bundle)
      expect(failed.status).toBe(500)
      expect(JSON.parse(failed.body!)).toMatchObject({ code: "internal_error", status: 500 })
      for (let i = 0; i < 2; i++) expect(Buffer.from((yield* reference.answer(bundle)).bytes!).toString()).toBe("bundle();")
      expect(reads).toBe(2)
    }).pipe(Effect.provide(Logger.layer([]))))
})

describe("ScalarBundle.parse", () => {
  it("decodes the module's string literal and drops the source-map comment", () => {
    expect(ScalarBundle.parse(`/** @internal */export const javascript="a\\"b\\n//# sourceMappingURL=/sm/x.map";\n//# x`)).toBe("a\"b\n")
  })

  it("fails on a module of another shape", () => {
    expect(() => ScalarBundle.parse("export default 1")).toThrow(/unexpected shape/)
  })
})
