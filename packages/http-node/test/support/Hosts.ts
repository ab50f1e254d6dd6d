/**
 * What every host that mounts the pet store must show, through real HTTP: the list, a POST after
 * the host's own JSON parser (answers the same, status and body, as the application reading raw
 * bytes), the same under a prefix (links included), and the client's socket address reaching the
 * failed-authentication limit; and the health endpoints under the prefix. Requests
 * leave from chosen loopback addresses (127.0.0.2, .3 ...), so two clients really have two addresses.
 */
import { Accounts } from "@petstore/core"
import { Effect, Redacted } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Zlib from "node:zlib"
import { afterAll, beforeAll, expect } from "vitest"
import { makeRuntime, type PetstoreRuntime } from "../../examples/hosts/petstore.js"
import type { App } from "../../src/App.js"
import * as WebHandler from "../../src/WebHandler.js"

export interface Answer {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
  /** The body as it came, not decoded (`Content-Encoding` left as it is). */
  readonly bytes: Buffer
  /** The body parsed as JSON, or `undefined`. */
  readonly body: any
}

export interface Sent {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string
  /** The client's own address (a loopback address other than 127.0.0.1 gives a distinct client). */
  readonly from?: string
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** One request over its own connection, from `sent.from`. */
export const send = (url: string, sent: Sent = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const request = Http.request(url, {
      method: sent.method ?? "GET",
      headers: sent.body === undefined ? sent.headers : { "content-length": String(Buffer.byteLength(sent.body)), ...sent.headers },
      localAddress: sent.from ?? "127.0.0.1",
      agent: false
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (c: Buffer) => chunks.push(c))
      response.on("end", () => {
        const bytes = Buffer.concat(chunks)
        const text = bytes.toString("utf8")
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, bytes, body: parse(text) })
      })
      response.on("error", reject)
    })
    request.on("error", reject)
    request.end(sent.body)
  })

/** An account whose limits no test here reaches; its key. */
export const createKey = (): Effect.Effect<string, unknown, Accounts.Accounts> =>
  Effect.map(
    Effect.flatMap(Accounts.Accounts, (accounts) =>
      accounts.create({ plan: "enterprise", limits: { perMinute: 100_000, perDay: 1_000_000 } })),
    ({ key }) => Redacted.value(key.key)
  )

const json = (key: string | undefined, contentType = "application/json") => ({
  ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
  "content-type": contentType
})

/** Bodies whose answers must not depend on who read the body first. */
const BODIES: ReadonlyArray<{ readonly what: string; readonly body: string; readonly contentType?: string; readonly keyless?: true }> = [
  { what: "a pet", body: JSON.stringify({ name: "Rex", categoryId: 1 }) },
  { what: "malformed JSON", body: "{\"name\": \"Rex\"," },
  { what: "malformed JSON without a key", body: "{bad", keyless: true },
  { what: "a JSON string", body: "\"Rex\"" },
  { what: "an array", body: "[]" },
  { what: "a field of the wrong type", body: JSON.stringify({ name: "Rex", categoryId: "1" }) },
  { what: "an explicit null status", body: JSON.stringify({ name: "Rex", categoryId: 1, status: null }) },
  { what: "nesting deeper than 32", body: `{"name":${"[".repeat(40)}${"]".repeat(40)}}` },
  { what: "a lone surrogate", body: "{\"name\":\"\\ud800\",\"categoryId\":1}" },
  { what: "70 KB", body: JSON.stringify({ name: "x".repeat(70_000), categoryId: 1 }) },
  { what: "a text body", body: "Rex", contentType: "text/plain" }
]

/** A host listening: where, and how to stop it. */
export interface Listening {
  readonly url: string
  readonly close: () => Promise<unknown>
}

/** A node:http server (Express's too) as `Listening`. */
export const listening = (server: Http.Server): Listening => ({
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  close: () => new Promise((done) => server.close(done))
})

/**
 * A host started on a fresh pet store before the file's tests, and stopped (then the pet store
 * disposed) after them; `url` is set once it listens.
 */
export const hostedBy = (start: (runtime: PetstoreRuntime) => Promise<Listening>) => {
  const hosted = { runtime: makeRuntime(), url: "", run: <A, E>(effect: Effect.Effect<A, E, App | Accounts.Accounts>) => hosted.runtime.runPromise(effect) }
  let close = (): Promise<unknown> => Promise.resolve()
  beforeAll(async () => {
    const host = await start(hosted.runtime)
    hosted.url = host.url
    close = host.close
  })
  afterAll(async () => {
    await close()
    await hosted.runtime.dispose()
  })
  return hosted
}

/**
 * The checks every host passes. `url` is the host's address; the pet store is at its root
 * (`/v1/…`) and under `/petstore`. `run` runs effects on the pet store the host mounts (for keys,
 * and for the reference answers: the fetch handler reading the raw bytes).
 */
export const checkHost = async (url: string, run: <A, E>(effect: Effect.Effect<A, E, App | Accounts.Accounts>) => Promise<A>) => {
  const key = await run(createKey())
  const reference = await run(WebHandler.make)
  const auth = { authorization: `Bearer ${key}` }

  // The list, and a POST after the host's own JSON parser.
  const created = await send(`${url}/v1/pets`, { method: "POST", headers: json(key), body: JSON.stringify({ name: "Rex", categoryId: 1 }) })
  expect(created.status, created.text).toBe(201)
  expect(created.headers.location).toBe(`/v1/pets/${created.body.id}`)
  const listed = await send(`${url}/v1/pets`, { headers: auth })
  expect(listed.status).toBe(200)
  expect(listed.headers["x-ratelimit-limit"]).toBe("100000")
  expect(listed.body).toContainEqual(created.body)
  // Every host answers with the request's id, as the application writes it.
  const identified = await send(`${url}/v1/pets`, { headers: { ...auth, "x-request-id": "host-check-1" } })
  expect(identified.headers["x-request-id"]).toBe("host-check-1")
  expect((await send(`${url}/petstore/v1/pets`)).headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
  // The API reference, its bundle and its document, addressed relative to the page: at the root and under the mount.
  for (const base of ["", "/petstore"]) {
    const docs = await send(`${url}${base}/docs`)
    expect(docs.headers["content-type"]).toMatch(/^text\/html/)
    const bundleUrl = `${url}${base}/${/<script src="([^"]+)"/.exec(docs.text)![1]}`
    const bundle = await send(bundleUrl)
    expect({ base, status: bundle.status, type: bundle.headers["content-type"] }).toEqual({ base, status: 200, type: "text/javascript; charset=utf-8" })
    expect(bundle.headers["content-length"]).toBe(String(bundle.bytes.length))
    // Compressed as asked (the bytes as the host wrote them, decoded here), and HEAD without a body.
    for (const [encoding, decode] of [["br", Zlib.brotliDecompressSync], ["gzip", Zlib.gunzipSync]] as const) {
      const compressed = await send(bundleUrl, { headers: { "accept-encoding": encoding } })
      expect({ base, encoding: compressed.headers["content-encoding"] }).toEqual({ base, encoding })
      expect(decode(compressed.bytes).equals(bundle.bytes)).toBe(true)
    }
    const bundleHead = await send(bundleUrl, { method: "HEAD" })
    expect({ status: bundleHead.status, length: bundleHead.headers["content-length"], text: bundleHead.text })
      .toEqual({ status: 200, length: String(bundle.bytes.length), text: "" })
    expect((await send(`${url}${base}/v1/openapi.json`)).status).toBe(200)
    const head = await send(`${url}${base}/docs`, { method: "HEAD" })
    expect({ base, status: head.status, type: head.headers["content-type"], text: head.text })
      .toEqual({ base, status: 200, type: "text/html; charset=utf-8", text: "" })
  }

  // Every body answers as when the application reads the bytes itself.
  for (const { body, contentType, keyless, what } of BODIES) {
    const headers = json(keyless ? undefined : key, contentType)
    const expected = await reference(new Request("http://reference.test/v1/pets", { method: "POST", headers, body }))
    const expectedBody = await expected.json() as Record<string, unknown>
    const answer = await send(`${url}/v1/pets`, { method: "POST", headers, body })
    expect({ what, status: answer.status }).toEqual({ what, status: expected.status })
    expect(answer.body).toEqual(expected.status === 201 ? { ...expectedBody, id: answer.body.id } : expectedBody)
  }

  // Under /petstore: the same operations, and links that stay under the prefix.
  const mounted = await send(`${url}/petstore/v1/pets`, { method: "POST", headers: json(key), body: JSON.stringify({ name: "Tom", categoryId: 2 }) })
  expect(mounted.status, mounted.text).toBe(201)
  expect(mounted.headers.location).toBe(`/petstore/v1/pets/${mounted.body.id}`)
  const got = await send(`${url}${mounted.headers.location}`, { headers: auth })
  expect(got.status).toBe(200)
  expect(got.body).toEqual(mounted.body)
  expect(got.headers.link).toBe("</petstore/v1/pets>; rel=\"successor-version\", </petstore/docs>; rel=\"deprecation\"; type=\"text/html\"")
  const mountedList = await send(`${url}/petstore/v1/pets?limit=1`, { headers: auth })
  expect(mountedList.status).toBe(200)
  expect(mountedList.headers.link).toMatch(/^<\/petstore\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/)
  expect((await send(`${url}/petstore/v1/pets`)).body).toMatchObject({ code: "unauthorized", status: 401 })

  // The health endpoints under the prefix, without a key (at the root, a host routes them or not).
  const health = await send(`${url}/petstore/healthz`)
  expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: { status: "ok" } })
  const ready = await send(`${url}/petstore/readyz`)
  expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: "ready", checks: { store: "up", rateLimiter: "up" } } })

  // Each client's socket address has its own failed-authentication bucket.
  const remaining = async (from: string) => (await send(`${url}/v1/pets`, { from })).headers["x-ratelimit-remaining"]
  const first = Number(await remaining("127.0.0.2"))
  expect(await remaining("127.0.0.2")).toBe(String(first - 1))
  expect(await remaining("127.0.0.3")).toBe(String(first))
}
