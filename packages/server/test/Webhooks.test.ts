/**
 * Webhook delivery end to end: a real server process (SQLite file), its admin API, and receivers on
 * 127.0.0.1 (`PETSTORE_WEBHOOK_ALLOW_PRIVATE=true`, retry delays made small by configuration).
 * Every wait is a bounded poll for the event it needs.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Dns from "node:dns/promises"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Webhook } from "standardwebhooks"
import { ADMIN_TOKEN, createAccount, get, post, request } from "./support/Http.js"
import { pollUntil, type Server, sqliteFile, start, stop } from "./support/ServerProcess.js"
import { isPublicAddress } from "../src/WebhookAddress.js"
import * as WebhookReceiver from "./support/WebhookReceiver.js"

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-webhooks-"))
let files = 0
const servers: Array<Server> = []
afterAll(async () => {
  await Promise.all(servers.map(stop))
})

const serve = async (settings: Record<string, string> = {}) => {
  const server = await start({
    ...sqliteFile(Path.join(folder, `hooks-${++files}.db`)),
    PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
    PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
    PETSTORE_WEBHOOK_RETRY_DELAYS: "0.05,0.05",
    PETSTORE_LOG_FORMAT: "json",
    ...settings
  })
  servers.push(server)
  return server
}

const admin = (server: Server, method: string, path: string, body?: unknown) =>
  request(`${server.url}/admin/v1${path}`, { method, key: ADMIN_TOKEN, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

/** Waits for the message to reach `status` (at most 30 s). */
const awaitStatus = (server: Server, key: string, id: string, status: string) =>
  pollUntil(`message ${id} to be ${status}`, async () => {
    const reply = await get(server.url, `/v1/messages/${id}`, key)
    return reply.body.status === status ? reply.body : undefined
  }, 600, 50)

describe("webhook delivery (server process, SQLite)", () => {
  it("a message is POSTed to the account's endpoint, signed: standardwebhooks verifies it; the secret is shown once and never logged", async () => {
    const server = await serve()
    const receiver = await WebhookReceiver.start()
    const account = await createAccount(server.url)
    const set = await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, { url: receiver.url })
    expect(set.status).toBe(200)
    expect(set.body).toMatchObject({ accountId: account.accountId, url: receiver.url, disabledAt: null, failingSince: null })
    const secret: string = set.body.secret
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24)
    const shown = await admin(server, "GET", `/accounts/${account.accountId}/webhook`)
    expect(shown.status).toBe(200)
    expect(JSON.stringify(shown.body)).not.toContain(secret.slice(6))
    expect(shown.body).not.toHaveProperty("secret")

    const created = await post(server.url, "/v1/messages", account.key, { message: "Hello, receiver ✓" })
    expect(created.status).toBe(202)
    const delivered = await awaitStatus(server, account.key, created.body.id, "delivered")
    expect(delivered).toMatchObject({ attempts: 1, deliveredAt: expect.any(String) })
    expect(receiver.deliveries).toHaveLength(1)
    const delivery = receiver.deliveries[0]!
    expect(delivery.headers["webhook-id"]).toBe(created.body.id)
    expect(delivery.headers["content-type"]).toBe("application/json")
    const event = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)
    expect(event).toEqual({
      type: "message.submitted",
      timestamp: created.body.createdAt,
      data: { id: created.body.id, message: "Hello, receiver ✓", createdAt: created.body.createdAt }
    })
    const attempts = await admin(server, "GET", `/messages/${created.body.id}/attempts`)
    expect(attempts.status).toBe(200)
    expect(attempts.body).toEqual([
      { attempt: 1, url: receiver.url, startedAt: expect.any(String), durationMs: expect.any(Number), statusCode: 200, error: null }
    ])
    expect(server.output()).not.toContain(secret.slice(6))
    await receiver.stop()
  })

  it("a receiver that is down for a while gets the message once it is back, with the same webhook-id", async () => {
    const server = await serve({ PETSTORE_WEBHOOK_RETRY_DELAYS: "0.05,0.1,0.2,0.4,0.8,1,1,1,1,1,1,1" })
    const receiver = await WebhookReceiver.start()
    await receiver.stop()
    const account = await createAccount(server.url)
    await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, { url: receiver.url })
    const created = await post(server.url, "/v1/messages", account.key, { message: "are you there?" })
    await pollUntil("a failed attempt", async () => {
      const attempts = await admin(server, "GET", `/messages/${created.body.id}/attempts`)
      return attempts.body.length >= 2 ? attempts.body : undefined
    }, 600, 50)
    const attempts = await admin(server, "GET", `/messages/${created.body.id}/attempts`)
    expect(attempts.body[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) })
    expect((await get(server.url, `/v1/messages/${created.body.id}`, account.key)).body.status).not.toBe("delivered")
    await receiver.restart()
    await awaitStatus(server, account.key, created.body.id, "delivered")
    expect(receiver.deliveries.map((d) => d.headers["webhook-id"])).toEqual([created.body.id])
    await receiver.stop()
  })

  it("a receiver that always fails: the message is failed with its attempts; replayed once the receiver is fixed, it is delivered", async () => {
    const server = await serve()
    const receiver = await WebhookReceiver.start()
    receiver.status = 500
    const account = await createAccount(server.url)
    const set = await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, { url: receiver.url })
    const created = await post(server.url, "/v1/messages", account.key, { message: "doomed for now" })
    const failed = await awaitStatus(server, account.key, created.body.id, "failed")
    // The account sees a short, stable reason; the admin's attempts keep the full text.
    expect(failed).toMatchObject({ attempts: 3, lastError: "endpoint answered 500" })
    expect(failed).not.toHaveProperty("deliveredAt")
    const attempts = await admin(server, "GET", `/messages/${created.body.id}/attempts`)
    expect(attempts.body.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual([[1, 500], [2, 500], [3, 500]])

    receiver.status = 204
    const replay = await admin(server, "POST", `/messages/${created.body.id}/replay`)
    expect(replay.status).toBe(202)
    expect(replay.body).toMatchObject({ id: created.body.id, status: "queued" })
    const delivered = await awaitStatus(server, account.key, created.body.id, "delivered")
    expect(delivered.attempts).toBe(4)
    const ids = new Set(receiver.deliveries.map((d) => d.headers["webhook-id"]))
    expect([...ids]).toEqual([created.body.id])
    const last = receiver.deliveries.at(-1)!
    expect(new Webhook(set.body.secret).verify(last.body, last.headers as Record<string, string>)).toBeTruthy()

    // Every failed message of the account since a time, at once.
    receiver.status = 503
    const sent = await Promise.all([1, 2, 3].map((i) => post(server.url, "/v1/messages", account.key, { message: `later ${i}` })))
    for (const m of sent) await awaitStatus(server, account.key, m.body.id, "failed")
    // Oldest first means by creation time, then id (docs/decisions.md): the three were sent at once, so
    // the server may take them in any order, or in the same millisecond, which the random ids then order.
    // The order expected is the one their acknowledged creation times and ids give, not the sending order.
    const more = [...sent].sort((a, b) =>
      a.body.createdAt === b.body.createdAt ? (a.body.id < b.body.id ? -1 : 1) : a.body.createdAt < b.body.createdAt ? -1 : 1
    )
    // The account's failed messages, a page at a time, oldest first; the next page named by a Link.
    const first = await admin(server, "GET", `/accounts/${account.accountId}/messages?status=failed&limit=2`)
    expect(first.status).toBe(200)
    expect(first.body.map((m: { id: string }) => m.id)).toEqual(more.slice(0, 2).map((m) => m.body.id))
    expect(first.body[0]).toEqual({
      id: more[0]!.body.id,
      status: "failed",
      message: `later ${sent.indexOf(more[0]!) + 1}`,
      attempts: 3,
      createdAt: more[0]!.body.createdAt,
      updatedAt: expect.any(String),
      lastError: "endpoint answered 503"
    })
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get("link") ?? "")
    expect(link).not.toBeNull()
    const second = await request(`${server.url}${link![1]}`, { key: ADMIN_TOKEN })
    expect(second.status).toBe(200)
    expect(second.body.map((m: { id: string }) => m.id)).toEqual([more[2]!.body.id])
    expect(second.headers.get("link")).toBeNull()
    const all = await admin(server, "GET", `/accounts/${account.accountId}/messages`)
    expect(all.body.map((m: { id: string }) => m.id)).toEqual([created.body.id, ...more.map((m) => m.body.id)])
    for (const [query, code] of [["status=lost", "invalid_request"], ["limit=0", "invalid_request"], ["limit=1e1", "invalid_request"], ["cursor=bm9wZQ", "invalid_cursor"]]) {
      expect((await admin(server, "GET", `/accounts/${account.accountId}/messages?${query}`)).body).toMatchObject({ code, status: 400 })
    }
    expect((await admin(server, "GET", "/accounts/acc_nope/messages?status=failed")).body).toMatchObject({ code: "not_found", status: 404 })
    receiver.status = 200
    const bulk = await admin(server, "POST", `/accounts/${account.accountId}/webhook/replay`, { since: delivered.createdAt })
    expect(bulk.status).toBe(202)
    expect([...bulk.body.replayed].sort()).toEqual(more.map((m) => m.body.id).sort())
    for (const m of more) await awaitStatus(server, account.key, m.body.id, "delivered")
    await receiver.stop()
  })

  it("secret rotation: both secrets sign meanwhile, never more than two, none but the new one after grace 0; the endpoint can be removed, then messages are recorded only", async () => {
    const server = await serve()
    const receiver = await WebhookReceiver.start()
    const account = await createAccount(server.url)
    const first = await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, { url: receiver.url })
    const rotated = await admin(server, "POST", `/accounts/${account.accountId}/webhook/rotate-secret`, { graceSeconds: 3600 })
    expect(rotated.status).toBe(201)
    expect(rotated.body.secret).not.toBe(first.body.secret)
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(3_500_000)
    const m = await post(server.url, "/v1/messages", account.key, { message: "rotating" })
    await awaitStatus(server, account.key, m.body.id, "delivered")
    const d = receiver.deliveries[0]!
    expect(String(d.headers["webhook-signature"]).split(" ")).toHaveLength(2)
    for (const secret of [first.body.secret, rotated.body.secret]) {
      expect(new Webhook(secret).verify(d.body, d.headers as Record<string, string>)).toBeTruthy()
    }
    // Rotations are bounded: at most the newest secret and the one in its grace sign; grace 0 retires all.
    const secrets: Array<string> = [first.body.secret, rotated.body.secret]
    for (let i = 0; i < 3; i++) {
      secrets.push((await admin(server, "POST", `/accounts/${account.accountId}/webhook/rotate-secret`, { graceSeconds: 604800 })).body.secret)
    }
    const m2 = await post(server.url, "/v1/messages", account.key, { message: "after three more rotations" })
    await awaitStatus(server, account.key, m2.body.id, "delivered")
    const d2 = receiver.deliveries.at(-1)!
    expect(String(d2.headers["webhook-signature"]).split(" ")).toHaveLength(2)
    for (const secret of secrets.slice(-2)) expect(new Webhook(secret).verify(d2.body, d2.headers as Record<string, string>)).toBeTruthy()
    for (const secret of secrets.slice(0, -2)) expect(() => new Webhook(secret).verify(d2.body, d2.headers as Record<string, string>)).toThrow()
    const cut = await admin(server, "POST", `/accounts/${account.accountId}/webhook/rotate-secret`, { graceSeconds: 0 })
    expect(cut.body).toMatchObject({ previousSecretExpiresAt: null })
    const m3 = await post(server.url, "/v1/messages", account.key, { message: "after a rotation without grace" })
    await awaitStatus(server, account.key, m3.body.id, "delivered")
    const d3 = receiver.deliveries.at(-1)!
    expect(String(d3.headers["webhook-signature"]).split(" ")).toHaveLength(1)
    expect(new Webhook(cut.body.secret).verify(d3.body, d3.headers as Record<string, string>)).toBeTruthy()
    for (const secret of secrets) expect(() => new Webhook(secret).verify(d3.body, d3.headers as Record<string, string>)).toThrow()
    const deliveredBefore = receiver.deliveries.length

    expect((await admin(server, "DELETE", `/accounts/${account.accountId}/webhook`)).status).toBe(204)
    expect((await admin(server, "GET", `/accounts/${account.accountId}/webhook`)).body).toMatchObject({ code: "not_found", status: 404 })
    const after = await post(server.url, "/v1/messages", account.key, { message: "nowhere" })
    expect(await awaitStatus(server, account.key, after.body.id, "delivered")).toMatchObject({ attempts: 1 })
    expect(receiver.deliveries).toHaveLength(deliveredBefore)
    expect((await admin(server, "GET", `/messages/${after.body.id}/attempts`)).body).toEqual([])
    await receiver.stop()
  })

  it("an endpoint that never answers holds at most its cap of workers: another account's messages, to the same host, arrive meanwhile", async () => {
    const server = await serve({ PETSTORE_WEBHOOK_TIMEOUT_MS: "20000" })
    // One receiver for both accounts (as a webhook relay serves many), hanging on X's path only.
    const receiver = await WebhookReceiver.start()
    receiver.hang = "/hooks"
    const [x, y] = [await createAccount(server.url), await createAccount(server.url)]
    await admin(server, "PUT", `/accounts/${x.accountId}/webhook`, { url: receiver.url })
    await admin(server, "PUT", `/accounts/${y.accountId}/webhook`, { url: `http://127.0.0.1:${receiver.port}/other` })
    // More of X's messages than there are workers (32), every one of them hanging for the attempt's 20 s.
    await Promise.all(Array.from({ length: 60 }, (_, i) => post(server.url, "/v1/messages", x.key, { message: `x ${i}` })))
    await pollUntil("the endpoint's cap (16) of requests in flight", async () => receiver.open().now === 16 ? true : undefined, 600, 25)
    const sentAt = Date.now()
    const ys = await Promise.all(Array.from({ length: 5 }, (_, i) => post(server.url, "/v1/messages", y.key, { message: `y ${i}` })))
    for (const m of ys) await awaitStatus(server, y.key, m.body.id, "delivered")
    const lateness = Date.now() - sentAt
    console.log(`webhook isolation: another account's 5 messages delivered ${lateness} ms after they were sent`)
    // Delivered while every one of X's capped requests still hangs: no worker of X's was freed by its
    // deadline for them (before the cap they waited for those deadlines: 29.6–44.3 s, docs/decisions.md).
    // That is the event to check rather than a time (it was "within 2 s", a speed a loaded machine need not
    // keep); X's deadline is 20 s so that the check has ample room on a slow machine.
    expect(receiver.open().now).toBe(16)
    expect(receiver.deliveries.filter((d) => JSON.parse(d.body).data.message.startsWith("y "))).toHaveLength(5)
    // X's messages beyond the cap waited queued, not in a worker: never more than 16 of its requests at once.
    expect(receiver.open().most).toBe(16)
    await receiver.stop()
  }, 60_000)

  it("bad input is a clear 400/404: not https, private addresses (by default), unknown account or message", async () => {
    const server = await serve({ PETSTORE_WEBHOOK_ALLOW_PRIVATE: "false" })
    const account = await createAccount(server.url)
    for (
      const [url, why] of [
        ["http://hooks.example.com/in", /https/],
        ["https://127.0.0.1/in", /non-public/],
        ["https://[::1]:8443/in", /non-public/],
        ["https://169.254.169.254/latest", /non-public/],
        ["https://[::127.0.0.1]/in", /non-public/],
        ["https://[::ffff:0:127.0.0.1]/in", /non-public/],
        ["https://[64:ff9b::10.0.0.1]/in", /non-public/],
        ["https://[2002:7f00:1::1]/in", /non-public/],
        ["https://localhost/in", /non-public/],
        ["https://hooks.localhost./in", /non-public/],
        ["https://LOCALHOST./in", /non-public/],
        ["https://printer.local/in", /non-public/],
        ["not a url", /absolute/]
      ] as const
    ) {
      const reply = await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, { url })
      expect([url, reply.status, reply.body.code]).toEqual([url, 400, "invalid_request"])
      expect(reply.body.message).toMatch(why)
    }
    expect((await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, {})).status).toBe(400)
    expect((await admin(server, "PUT", "/accounts/acc_nope/webhook", { url: "https://hooks.example.com/" })).status).toBe(404)
    expect((await admin(server, "GET", "/messages/msg_nope/attempts")).status).toBe(404)
    expect((await admin(server, "POST", "/messages/msg_nope/replay")).status).toBe(404)
    expect((await admin(server, "POST", `/accounts/${account.accountId}/webhook/replay`, { since: "yesterday" })).status).toBe(400)
  })

  it("by default a name resolving to loopback is refused at connect time: nothing reaches the receiver", async () => {
    // The machine's own name: not local by definition (so accepted when the endpoint is set), and
    // resolving to a non-public address here (loopback by /etc/hosts; a container's private address).
    const name = Os.hostname()
    expect((await Dns.lookup(name, { all: true })).some(({ address }) => !isPublicAddress(address))).toBe(true)
    const server = await serve({ PETSTORE_WEBHOOK_ALLOW_PRIVATE: "false" })
    const receiver = await WebhookReceiver.start()
    const account = await createAccount(server.url)
    const set = await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, { url: `https://${name}:${receiver.port}/hooks` })
    expect(set.status).toBe(200)
    const m = await post(server.url, "/v1/messages", account.key, { message: "to the machine's own name" })
    const failed = await awaitStatus(server, account.key, m.body.id, "failed")
    // The account sees no host name or resolver text; the admin's attempts say what was refused.
    expect(failed.lastError).toBe("endpoint address refused")
    const attempts = await admin(server, "GET", `/messages/${m.body.id}/attempts`)
    expect(attempts.body[0].error).toMatch(new RegExp(`^refused: ${name} resolves to no public address`))
    expect(receiver.deliveries).toEqual([])
    await receiver.stop()
  })
})
