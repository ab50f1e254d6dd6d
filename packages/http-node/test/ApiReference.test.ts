/**
 * The API reference at `/docs` over real HTTP: the page (small, relative addresses only, Scalar's
 * settings that keep it offline), the bundle it loads (versioned URL, cached for a year, read on the
 * first request), `/favicon.ico` without a key. The page running in a browser is
 * packages/server/test/ApiReferenceBrowser.test.ts.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { Api, PUBLIC_PREFIX } from "../src/Api.js"
import * as ApiReference from "../src/internal/openapi/apiReference.js"
import * as ScalarBundle from "../src/internal/openapi/scalarBundle.js"
import * as OpenApiDocument from "../src/OpenApiDocument.js"
import { expectError, expectStatus, expectUnauthorized } from "./support/Expectations.js"
import { TestServer } from "./support/TestServer.js"

const BUNDLE = `/docs?asset=scalar-${ScalarBundle.version()}.js`

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
      const first = expectStatus(yield* server.get(BUNDLE), 200)
      expect(first.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      expect(first.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(first.text).toContain("@scalar/api-reference@")
      expect(first.text).toContain("createApiReference")
      expect(first.text.length).toBeGreaterThan(1_000_000)
      // No source map the server could not serve.
      expect(first.text).not.toContain("sourceMappingURL")
      const again = expectStatus(yield* server.get(BUNDLE), 200)
      expect(again.text).toBe(first.text)
      const head = expectStatus(yield* server.request("HEAD", BUNDLE), 200)
      expect(head.text).toBe("")
      expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(first.text)))
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

describe("ApiReference.make", () => {
  const doc = OpenApiDocument.make({ api: Api, servers: [{ url: "https://api.example.com", description: "Production" }] })

  it("keeps text from the document inert: nothing in a server or the title can close the script or add markup", () => {
    const hostile = "</script><script>alert(1)</script>"
    const reference = ApiReference.make({
      document: { ...doc, info: { ...doc.info, title: `Pets ${hostile}` }, servers: [{ url: `https://x.test/${hostile}`, description: hostile }] },
      openApiPath: "/v1/openapi.json"
    })
    expect(reference.html.match(/<script/g)).toHaveLength(2)
    expect(reference.html.match(/<\/script>/g)).toHaveLength(2)
    expect(settingsOf(reference.html).servers).toEqual([{ url: `https://x.test/${hostile}`, description: hostile }])
    expect(reference.html).toContain("<title>Pets &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; 1.0.0 · API reference</title>")
  })
})

describe("ApiReference bundle", () => {
  const doc = OpenApiDocument.make({ api: Api, servers: [] })

  it.effect("a bundle that cannot be read is a 500 Error body, and the next request reads it again", () =>
    Effect.gen(function*() {
      let reads = 0
      const reference = ApiReference.make({
        document: doc,
        openApiPath: "/v1/openapi.json",
        readBundle: () => ++reads === 1 ? Promise.reject(new Error("gone")) : Promise.resolve("bundle();")
      })
      const failed = yield* reference.answer(`/docs?${reference.bundleQuery}`)
      expect(failed.status).toBe(500)
      expect(JSON.parse(failed.body!)).toMatchObject({ code: "internal_error", status: 500 })
      for (let i = 0; i < 2; i++) expect((yield* reference.answer(`/docs?${reference.bundleQuery}`)).body).toBe("bundle();")
      expect(reads).toBe(2)
    }).pipe(Effect.provide(Logger.remove(Logger.defaultLogger))))
})

describe("ScalarBundle.parse", () => {
  it("decodes the module's string literal and drops the source-map comment", () => {
    expect(ScalarBundle.parse(`/** @internal */export const javascript="a\\"b\\n//# sourceMappingURL=/sm/x.map";\n//# x`)).toBe("a\"b\n")
  })

  it("fails on a module of another shape", () => {
    expect(() => ScalarBundle.parse("export default 1")).toThrow(/unexpected shape/)
  })
})
