/**
 * Webhook delivery across crashes and instances: kill -9 of a server while it delivers (SQLite), and
 * two instances on one PostgreSQL database. Every accepted message is delivered at least once, a
 * duplicate carries the same webhook-id, and every delivery verifies. For the crash the lease is made
 * short by configuration (PETSTORE_WEBHOOK_TIMEOUT_MS=1000: a 3 s lease); every wait is a bounded poll.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Webhook } from "standardwebhooks"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, get, request, type TestAccount } from "./support/Http.js"
import { exited, pollUntil, type Server, sqliteFile, start, stop } from "./support/ServerProcess.js"
import * as WebhookReceiver from "./support/WebhookReceiver.js"

const database = await TestDatabase.make()
const servers: Array<Server> = []
const receivers: Array<WebhookReceiver.Receiver> = []
afterAll(async () => {
  await Promise.all(servers.map(stop))
  await Promise.all(receivers.map((r) => r.stop()))
})

const SETTINGS = {
  PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
  PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
  PETSTORE_WEBHOOK_RETRY_DELAYS: "0.05,0.1,0.2,0.5,1,1,1,1,1,1",
  PETSTORE_WEBHOOK_TIMEOUT_MS: "1000"
}

const serve = async (settings: Record<string, string>) => {
  const server = await start({ ...SETTINGS, ...settings })
  servers.push(server)
  return server
}

const submit = async (server: Server, account: TestAccount, text: string) => {
  try {
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: text })
    })
    const body = await response.json() as { id: string }
    return response.status === 202 ? body.id : undefined
  } catch {
    return undefined // the server was killed: not acknowledged
  }
}

/** Every delivery verifies with `secret` and is of an accepted message; answers the ids received. */
/**
 * Every delivery verifies with `secret` and is of a message sent (a message stored just before the
 * kill may be delivered though its 202 never reached the client); answers the ids received.
 */
const checkDeliveries = (receiver: WebhookReceiver.Receiver, secret: string, prefix: string) => {
  const hook = new Webhook(secret)
  const received = new Set<string>()
  for (const d of receiver.deliveries) {
    const event = hook.verify(d.body, d.headers as Record<string, string>) as { data: { id: string; message: string } }
    expect(event.data.id).toBe(d.headers["webhook-id"])
    expect(event.data.message.startsWith(prefix)).toBe(true)
    received.add(event.data.id)
  }
  return received
}

const setEndpoint = async (server: Server, accountId: string, url: string) => {
  const reply = await request(`${server.url}/admin/v1/accounts/${accountId}/webhook`, {
    method: "PUT",
    key: ADMIN_TOKEN,
    body: JSON.stringify({ url })
  })
  expect(reply.status).toBe(200)
  return reply.body.secret as string
}

describe("webhook delivery across crashes and instances", () => {
  it("kill -9 while delivering (SQLite): after a restart every accepted message is delivered at least once, duplicates with the same webhook-id", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-hooks-crash-"))
    const store = sqliteFile(Path.join(folder, "petstore.db"))
    const receiver = await WebhookReceiver.start()
    receivers.push(receiver)
    const first = await serve(store)
    const account = await createAccount(first.url)
    const secret = await setEndpoint(first, account.accountId, receiver.url)
    const accepted = new Set<string>()
    let stopping = false
    const clients = Array.from({ length: 4 }, async (_, n) => {
      for (let i = 0; !stopping; i++) {
        const id = await submit(first, account, `crash ${n}-${i}`)
        if (id !== undefined) accepted.add(id)
      }
    })
    await pollUntil("deliveries under way", () => (receiver.deliveries.length >= 40 ? true : undefined), 600, 25)
    first.process.kill("SIGKILL")
    await exited(first.process)
    stopping = true
    await Promise.all(clients)
    expect(accepted.size).toBeGreaterThan(0)

    const second = await serve(store)
    await pollUntil("every accepted message delivered", async () => {
      for (const id of accepted) {
        const reply = await get(second.url, `/v1/messages/${id}`, account.key)
        if (reply.body.status !== "delivered") return undefined
      }
      return true
    }, 300, 100)
    const received = checkDeliveries(receiver, secret, "crash ")
    expect([...accepted].filter((id) => !received.has(id))).toEqual([])
  })

  if ("skip" in database) {
    it.skip(`two instances on PostgreSQL (${database.skip})`, () => {})
  } else {
    it("two instances on one PostgreSQL database: each message is delivered, none lost", async () => {
      const url = await database.freshUrl()
      const receiver = await WebhookReceiver.start()
      receivers.push(receiver)
      // The default attempt deadline, so the default lease (32 s): no message outlives its lease here.
      const settings = { PETSTORE_DATABASE: url, PETSTORE_DATABASE_POOL_SIZE: "4", PETSTORE_WEBHOOK_TIMEOUT_MS: "15000" }
      const [a, b] = [await serve(settings), await serve(settings)]
      const account = await createAccount(a.url)
      const secret = await setEndpoint(a, account.accountId, receiver.url)
      const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => submit(i % 2 === 0 ? a : b, account, `pair ${i}`)))
      const accepted = new Set(ids.filter((id): id is string => id !== undefined))
      expect(accepted.size).toBe(100)
      await pollUntil("every message delivered", async () => {
        for (const id of accepted) {
          const reply = await get(b.url, `/v1/messages/${id}`, account.key)
          if (reply.body.status !== "delivered") return undefined
        }
        return true
      }, 300, 100)
      const received = checkDeliveries(receiver, secret, "pair ")
      expect([...received].sort()).toEqual([...accepted].sort())
      // The lease keeps a message with one instance at a time: with no crash, none is delivered twice.
      expect(receiver.deliveries.length).toBe(100)
    })
  }
})
