import { describe, expect, it } from "@effect/vitest"
import { Effect, Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { WebhookDelivery } from "@petstore/core"
import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { isPublicAddress, urlProblem } from "../src/WebhookAddress.js"
import * as WebhookClient from "../src/WebhookClient.js"

interface Receiver {
  readonly port: number
  readonly requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>
  connections: number
}

/** A receiver on 127.0.0.1 (port 0) answering with `answer`; closed with the scope. */
const receiver = (answer: (req: http.IncomingMessage, res: http.ServerResponse) => void, host = "127.0.0.1") =>
  Effect.acquireRelease(
    Effect.callback<{ server: http.Server; state: Receiver }>((resume) => {
      const state: Receiver = { port: 0, requests: [], connections: 0 }
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          state.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() })
          answer(req, res)
        })
      })
      server.on("connection", () => void state.connections++)
      server.listen(0, host, () => {
        ;(state as { port: number }).port = (server.address() as AddressInfo).port
        resume(Effect.succeed({ server, state }))
      })
    }),
    ({ server }) => Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
  ).pipe(Effect.map(({ state }) => state))

const request = (url: string, timeoutMillis = 15_000): WebhookDelivery.DeliveryRequest => ({
  url,
  headers: { "content-type": "application/json", "webhook-id": "msg_1" },
  body: "{\"a\":1}",
  timeoutMillis
})

const client = (options: Partial<WebhookClient.WebhookClientOptions>) =>
  Effect.flatMap(Scope.Scope, (scope) => Scope.provide(WebhookClient.make({ ...WebhookClient.DEFAULT_OPTIONS, ...options }), scope))

const ok = (_: http.IncomingMessage, res: http.ServerResponse) => res.writeHead(200).end("ok")

describe("WebhookAddress", () => {
  it("private, loopback, link-local, shared, documentation, multicast and reserved addresses are not public", () => {
    for (
      const address of [
        "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "192.0.2.5", "198.51.100.1", "203.0.113.9", "198.18.0.1", "224.0.0.1", "255.255.255.255",
        "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1",
        "2001:db8::1", "ff02::1", "::127.0.0.1", "::7f00:1", "::ffff:0:127.0.0.1", "::ffff:0:7f00:1", "2002:7f00:1::",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2", "not-an-ip"
      ]
    ) expect([address, isPublicAddress(address)]).toEqual([address, false])
    for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450::1"]) {
      expect([address, isPublicAddress(address)]).toEqual([address, true])
    }
  })

  it("an endpoint URL is https, without credentials, and not a non-public IP literal, unless private addresses are allowed", () => {
    expect(urlProblem("https://hooks.example.com/in", false)).toBeUndefined()
    expect(urlProblem("https://8.8.8.8/in", false)).toBeUndefined()
    expect(urlProblem("http://hooks.example.com/in", false)).toMatch(/https/)
    expect(urlProblem("ftp://hooks.example.com/in", true)).toMatch(/http or https/)
    expect(urlProblem("hooks.example.com", false)).toMatch(/absolute/)
    expect(urlProblem("https://user:pw@hooks.example.com/", false)).toMatch(/user or password/)
    for (const url of ["https://127.0.0.1/", "https://[::1]:8443/", "https://10.0.0.1/", "https://169.254.169.254/latest", "https://[::ffff:127.0.0.1]/"]) {
      expect([url, urlProblem(url, false)]).toEqual([url, expect.stringMatching(/non-public/)])
      expect([url, urlProblem(url, true)]).toEqual([url, undefined])
    }
    expect(urlProblem("http://127.0.0.1:9/", true)).toBeUndefined()
  })

  it("names local by definition are refused like loopback literals (localhost, *.localhost, *.local, any case, a trailing dot)", () => {
    for (const url of ["https://localhost/in", "https://LocalHost./in", "https://api.localhost/in", "https://a.b.localhost./", "https://printer.local/"]) {
      expect([url, urlProblem(url, false)]).toEqual([url, expect.stringMatching(/non-public/)])
      expect([url, urlProblem(url, true)]).toEqual([url, undefined])
    }
    for (const url of ["https://localhost.example.com/in", "https://notlocalhost/in", "https://local.example.com/"]) {
      expect([url, urlProblem(url, false)]).toEqual([url, undefined])
    }
  })

  /** A non-public IPv4 address: one of the refused ranges, any address in it. */
  const privateV4 = fc.constantFrom(
    [127, 0, 0, 0, 8], [10, 0, 0, 0, 8], [172, 16, 0, 0, 12], [192, 168, 0, 0, 16], [169, 254, 0, 0, 16],
    [100, 64, 0, 0, 10], [0, 0, 0, 0, 8], [198, 18, 0, 0, 15]
  ).chain(([a, b, c, d, prefix]) =>
    fc.integer({ min: 0, max: 2 ** (32 - prefix!) - 1 }).map((offset) => {
      const n = (((a! << 24) | (b! << 16) | (c! << 8) | d!) >>> 0) + offset
      return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255] as const
    })
  )
  const hex16 = (hi: number, lo: number) => ((hi << 8) | lo).toString(16)
  /** The ways a URL can spell an IPv4 address: the URL parser's IPv4 forms and the IPv6 forms that carry one. */
  const spellings: ReadonlyArray<(v: readonly [number, number, number, number]) => string> = [
    ([a, b, c, d]) => `${a}.${b}.${c}.${d}`,
    ([a, b, c, d]) => String(((a << 24) | (b << 16) | (c << 8) | d) >>> 0),
    ([a, b, c, d]) => `0x${(((a << 24) | (b << 16) | (c << 8) | d) >>> 0).toString(16)}`,
    ([a, b, c, d]) => `0${a.toString(8)}.0x${b.toString(16)}.${c}.${d}`,
    ([a, b, c, d]) => `${a}.${(b << 16) | (c << 8) | d}`,
    ([a, b, c, d]) => `[::ffff:${a}.${b}.${c}.${d}]`,
    ([a, b, c, d]) => `[::FFFF:${hex16(a, b)}:${hex16(c, d)}]`,
    ([a, b, c, d]) => `[0:0:0:0:0:ffff:${a}.${b}.${c}.${d}]`,
    ([a, b, c, d]) => `[::${a}.${b}.${c}.${d}]`,
    ([a, b, c, d]) => `[::${hex16(a, b)}:${hex16(c, d)}]`,
    ([a, b, c, d]) => `[::ffff:0:${a}.${b}.${c}.${d}]`,
    ([a, b, c, d]) => `[64:ff9b::${a}.${b}.${c}.${d}]`,
    ([a, b, c, d]) => `[64:ff9b:1::${hex16(a, b)}:${hex16(c, d)}]`,
    ([a, b, c, d]) => `[2002:${hex16(a, b)}:${hex16(c, d)}::1]`
  ]

  prop("every spelling of a non-public IPv4 address in an endpoint URL is refused, unless private addresses are allowed", [
    privateV4,
    fc.integer({ min: 0, max: spellings.length - 1 }),
    fc.constantFrom("", ":8443"),
    fc.constantFrom("/", "/hooks?x=1")
  ], ([address, spelling, port, path]) => {
    const url = `https://${spellings[spelling]!(address)}${port}${path}`
    expect([url, urlProblem(url, false)]).toEqual([url, expect.stringMatching(/non-public/)])
    expect([url, urlProblem(url, true)]).toEqual([url, undefined])
  })

  prop("every spelling of a non-public IPv6 address (loopback, unspecified, unique local, link-local) is refused", [
    fc.constantFrom("0000:0000:0000:0000:0000:0000:0000:0001", "0::1", "::", "0:0:0:0:0:0:0:0"),
    fc.constantFrom("fc", "fd", "fe8", "fe9", "fea", "feb"),
    fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }),
    fc.boolean()
  ], ([loopback, prefix, groups, upper]) => {
    const local = `${prefix}${prefix.length === 2 ? "00" : "0"}:${groups.map((g) => g.toString(16)).join(":")}::1`
    for (const address of [loopback, local]) {
      const url = `https://[${upper ? address.toUpperCase() : address}]/in`
      expect([url, urlProblem(url, false)]).toEqual([url, expect.stringMatching(/non-public/)])
    }
  })
})

describe("WebhookClient", () => {
  it.live("refuses loopback literals and names resolving to loopback, sending nothing; http is refused too", () =>
    Effect.gen(function*() {
      const r = yield* receiver(ok)
      const sender = yield* client({ allowPrivate: false })
      for (const url of [`https://127.0.0.1:${r.port}/`, `https://[::1]:${r.port}/`, `https://localhost:${r.port}/`, `http://localhost:${r.port}/`]) {
        const outcome = yield* sender.send(request(url))
        expect([url, outcome]).toEqual([url, { _tag: "NoAnswer", kind: "refused", error: expect.stringMatching(/^refused: /) }])
      }
      expect(r.connections).toBe(0)
      expect(r.requests).toEqual([])
    }))

  it.live("with private addresses allowed: POSTs the body and headers, reports the status, keeps the connection alive", () =>
    Effect.gen(function*() {
      const r = yield* receiver(ok)
      const sender = yield* client({ allowPrivate: true })
      for (const host of ["127.0.0.1", "localhost"]) {
        const outcome = yield* sender.send(request(`http://${host}:${r.port}/hook?x=1`))
        expect(outcome).toEqual({ _tag: "Answered", status: 200, retryAfterMillis: undefined })
      }
      expect(yield* sender.send(request(`http://127.0.0.1:${r.port}/hook?x=1`))).toMatchObject({ status: 200 })
      expect(r.requests.map((q) => [q.method, q.url, q.body, q.headers["webhook-id"]])).toEqual(
        Array(3).fill(["POST", "/hook?x=1", "{\"a\":1}", "msg_1"])
      )
      // localhost may resolve to ::1 where the receiver does not listen, or to 127.0.0.1: at most two connections.
      expect(r.connections).toBeLessThanOrEqual(2)
    }))

  it.live("does not follow redirects: a 3xx is the answer", () =>
    Effect.gen(function*() {
      const r = yield* receiver((req, res) => req.url === "/hook" ? res.writeHead(307, { location: "/elsewhere" }).end() : res.writeHead(200).end())
      const sender = yield* client({ allowPrivate: true })
      expect(yield* sender.send(request(`http://127.0.0.1:${r.port}/hook`))).toMatchObject({ _tag: "Answered", status: 307 })
      expect(r.requests.map((q) => q.url)).toEqual(["/hook"])
    }))

  it.live("reads Retry-After in seconds or as a date", () =>
    Effect.gen(function*() {
      const r = yield* receiver((req, res) =>
        res.writeHead(req.url === "/s" ? 429 : 503, { "retry-after": req.url === "/s" ? "7" : new Date(Date.now() + 60_000).toUTCString() }).end()
      )
      const sender = yield* client({ allowPrivate: true })
      expect(yield* sender.send(request(`http://127.0.0.1:${r.port}/s`))).toEqual({ _tag: "Answered", status: 429, retryAfterMillis: 7000 })
      const dated = yield* sender.send(request(`http://127.0.0.1:${r.port}/d`))
      expect(dated).toMatchObject({ _tag: "Answered", status: 503 })
      expect((dated as { retryAfterMillis: number }).retryAfterMillis).toBeGreaterThan(50_000)
      expect((dated as { retryAfterMillis: number }).retryAfterMillis).toBeLessThanOrEqual(60_000)
    }))

  it.live("a huge answer body is not read to its end: the status comes back and the client goes on", () =>
    Effect.gen(function*() {
      const chunk = Buffer.alloc(64 * 1024, 97)
      const r = yield* receiver((_, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        // An endless body: only a limited read can finish.
        const pump = () => {
          while (res.write(chunk));
          res.once("drain", pump)
        }
        res.on("close", () => res.removeAllListeners("drain"))
        pump()
      })
      const sender = yield* client({ allowPrivate: true, maxAnswerBytes: 1024 })
      expect(yield* sender.send(request(`http://127.0.0.1:${r.port}/`))).toMatchObject({ _tag: "Answered", status: 200 })
    }))

  it.live("no answer within the timeout, or nobody listening: no answer, with the reason", () =>
    Effect.gen(function*() {
      const r = yield* receiver(() => undefined)
      const sender = yield* client({ allowPrivate: true, timeoutMillis: 100 })
      expect(yield* sender.send(request(`http://127.0.0.1:${r.port}/`))).toEqual({ _tag: "NoAnswer", kind: "timeout", error: expect.stringMatching(/Timeout/i) })
      // A port just freed: nobody listens there now.
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const server = http.createServer().listen(0, "127.0.0.1", () => {
            const { port } = server.address() as AddressInfo
            server.close(() => resolve(port))
          })
        })
      )
      expect(yield* sender.send(request(`http://127.0.0.1:${port}/`))).toEqual({ _tag: "NoAnswer", kind: "unreachable", error: expect.stringMatching(/ECONNREFUSED/) })
    }))

  it.live("the attempt's deadline bounds the exchange, whatever the client's own timeouts: no answer within it", () =>
    Effect.gen(function*() {
      const silent = yield* receiver(() => undefined)
      const late = yield* receiver((_, res) => {
        const timer = setTimeout(() => res.writeHead(200).end("ok"), 3_000)
        res.on("close", () => clearTimeout(timer))
      })
      const sender = yield* client({ allowPrivate: true, timeoutMillis: 10_000 })
      const started = Date.now()
      expect(yield* sender.send(request(`http://127.0.0.1:${silent.port}/`, 150))).toEqual(WebhookDelivery.noAnswerWithin(150))
      expect(yield* sender.send(request(`http://127.0.0.1:${late.port}/`, 150))).toEqual(WebhookDelivery.noAnswerWithin(150))
      // Both cut at their deadline, not at the client's 10 s timeouts nor the late answer (a margin for a busy machine).
      expect(Date.now() - started).toBeLessThan(2_500)
      // The head in time, the body dribbled out past the deadline: no whole answer within it.
      const dribbling = yield* receiver((_, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        const timer = setInterval(() => res.write("."), 20)
        res.on("close", () => clearInterval(timer))
      })
      expect(yield* sender.send(request(`http://127.0.0.1:${dribbling.port}/`, 150))).toEqual(WebhookDelivery.noAnswerWithin(150))
      // The same receiver within a deadline that leaves it time: answered.
      expect(yield* sender.send(request(`http://127.0.0.1:${late.port}/`, 8_000))).toMatchObject({ _tag: "Answered", status: 200 })
    }))
})
