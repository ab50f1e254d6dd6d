import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Zlib from "node:zlib"
import * as ConsoleBuild from "./support/ConsoleBuild.js"
import { expectError, expectStatus } from "./support/Expectations.js"
import { ADMIN_TOKEN, TestServer, type TestServerOptions } from "./support/TestServer.js"

const build = ConsoleBuild.make()
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
const PAGES = ["/console", "/console/", "/console/accounts", "/console/accounts/acc_123", "/console/messages/msg_456", "/console/sign-in"]

const start = (options: TestServerOptions = {}) => TestServer.start({ console: { directory: build.directory }, ...options })

it.effect("without an admin token, or with the console off, every /console path is 404", () =>
  Effect.gen(function*() {
    for (const server of [yield* start({ adminToken: null }), yield* TestServer.start()]) {
      for (const path of [...PAGES, `/console/assets/${build.script}`, "/console/session"]) {
        expectError(yield* server.request("GET", path), 404, "not_found")
      }
      expectError(yield* server.request("POST", "/console/session", { json: { token: ADMIN_TOKEN } }), 404, "not_found")
    }
  }))

it.effect("every page is the same shell: no-store, the exact CSP, nosniff, no referrer, loading the manifest's script and style", () =>
  Effect.gen(function*() {
    const server = yield* start()
    const bodies = new Set<string>()
    for (const path of PAGES) {
      const reply = expectStatus(yield* server.request("GET", path), 200)
      expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(reply.headers.get("content-security-policy")).toBe(CSP)
      expect(reply.headers.get("x-content-type-options")).toBe("nosniff")
      expect(reply.headers.get("referrer-policy")).toBe("no-referrer")
      expect(reply.headers.get("cache-control")).toBe("no-store")
      bodies.add(reply.text)
    }
    expect(bodies.size).toBe(1)
    const [shell] = bodies
    expect(shell).toContain(`<script type="module" src="/console/assets/${build.script}"></script>`)
    expect(shell).toContain(`<link rel="stylesheet" href="/console/assets/${build.style}">`)
    // No inline script or style: every <script> has a src, and there is no <style> nor style attribute.
    expect(shell).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
    expect(shell).not.toMatch(/<style|\sstyle=/)
    expectError(yield* server.request("POST", "/console/accounts"), 405, "method_not_allowed")
  }))

it.effect("assets: immutable for a year, brotli or gzip by Accept-Encoding, 304 on their tag, 404 Error body for an unknown one", () =>
  Effect.gen(function*() {
    const server = yield* start()
    const path = `/console/assets/${build.script}`
    const encodings = [["br", "br"], ["gzip", "gzip"], ["gzip;q=0.5, br;q=0.1", "gzip"], ["identity", null]] as const
    for (const [accept, expected] of encodings) {
      const response = yield* Effect.promise(() => fetch(server.url + path, { headers: { "accept-encoding": accept } }))
      const bytes = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
      expect(response.status).toBe(200)
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      expect(response.headers.get("x-content-type-options")).toBe("nosniff")
      expect(response.headers.get("vary")).toBe("Accept-Encoding")
      expect(response.headers.get("content-encoding")).toBe(expected)
      // fetch decodes what it asked for; the length sent shows the bytes were compressed.
      expect(bytes.toString()).toBe(build.scriptText)
      const sent = Number(response.headers.get("content-length"))
      if (expected === null) expect(sent).toBe(build.scriptText.length)
      else expect(sent).toBeLessThan(build.scriptText.length / 4)
      const etag = response.headers.get("etag")!
      const again = yield* Effect.promise(() => fetch(server.url + path, { headers: { "accept-encoding": accept, "if-none-match": etag } }))
      expect(again.status).toBe(304)
    }
    const style = expectStatus(yield* server.request("GET", `/console/assets/${build.style}`), 200)
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8")
    for (const unknown of ["main-00000000.js", "manifest.json", "..%2Fmanifest.json", ""]) {
      expectError(yield* server.request("GET", `/console/assets/${unknown}`), 404, "not_found")
    }
  }))

it.effect("assets compressed at build (`<name>.br`, `<name>.gz` beside it) are sent as they are, and are no files of their own", () =>
  Effect.gen(function*() {
    const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-console-precompressed-"))
    try {
      const script = "main-PRE12345.js"
      const text = `console.log(${JSON.stringify("precompressed ".repeat(300))})\n`
      // Low levels: lengths the server's own compression (brotli 9, gzip 9) would not give.
      const br = Zlib.brotliCompressSync(text, { params: { [Zlib.constants.BROTLI_PARAM_QUALITY]: 1 } })
      const gz = Zlib.gzipSync(text, { level: 1 })
      Fs.writeFileSync(Path.join(directory, script), text)
      Fs.writeFileSync(Path.join(directory, `${script}.br`), br)
      Fs.writeFileSync(Path.join(directory, `${script}.gz`), gz)
      Fs.writeFileSync(Path.join(directory, "manifest.json"), JSON.stringify({ script }))
      const server = yield* TestServer.start({ console: { directory } })
      for (const [accept, bytes] of [["br", br], ["gzip", gz]] as const) {
        const response = yield* Effect.promise(() => fetch(`${server.url}/console/assets/${script}`, { headers: { "accept-encoding": accept } }))
        expect(response.headers.get("content-encoding")).toBe(accept)
        expect(Number(response.headers.get("content-length"))).toBe(bytes.length)
        expect(yield* Effect.promise(() => response.text())).toBe(text)
      }
      for (const name of [`${script}.br`, `${script}.gz`]) {
        expectError(yield* server.request("GET", `/console/assets/${name}`), 404, "not_found")
      }
    } finally {
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  }))
