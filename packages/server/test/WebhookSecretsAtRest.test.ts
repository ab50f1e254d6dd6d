/**
 * `PETSTORE_WEBHOOK_SECRET_KEY`: the server process keeps webhook signing secrets sealed in its store
 * (SQLite file, PostgreSQL database): the stored column holds neither secret the admin API answered,
 * current or rotated out, yet every delivery is signed with both, and a server restarted with the
 * same key reads them. A key of the wrong size is refused at start.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import Sqlite3 from "better-sqlite3"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Webhook } from "standardwebhooks"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, post, request } from "./support/Http.js"
import { cli, pollUntil, type Server, sqliteFile, start, stop } from "./support/ServerProcess.js"
import * as WebhookReceiver from "./support/WebhookReceiver.js"

const KEY = Buffer.alloc(32, 0x5a).toString("base64")
const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-sealed-secrets-"))
afterAll(() => Fs.rmSync(folder, { recursive: true, force: true }))

const admin = (server: Server, method: string, path: string, body?: unknown) =>
  request(`${server.url}/admin/v1${path}`, { method, key: ADMIN_TOKEN, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const settingsOf = (store: Record<string, string>) => ({
  ...store,
  PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
  PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
  PETSTORE_WEBHOOK_SECRET_KEY: KEY
})

/**
 * Sets an endpoint, rotates its secret, checks the stored column (read by `column`) against both
 * secrets, and that a message is delivered signed with both; then again after a restart.
 */
const sealedThroughout = async (store: Record<string, string>, column: (accountId: string) => Promise<string>) => {
  const receiver = await WebhookReceiver.start()
  let server = await start(settingsOf(store))
  try {
    const account = await createAccount(server.url)
    const first = await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, { url: receiver.url })
    expect(first.status).toBe(200)
    const rotated = await admin(server, "POST", `/accounts/${account.accountId}/webhook/rotate-secret`, { graceSeconds: 3600 })
    expect(rotated.status).toBe(201)
    const secrets: Array<string> = [first.body.secret, rotated.body.secret]
    const stored = await column(account.accountId)
    expect(stored).toContain("sealed:v1:")
    for (const secret of secrets) {
      expect(stored).not.toContain(secret)
      expect(stored).not.toContain(secret.slice("whsec_".length, "whsec_".length + 16))
    }
    const deliveredWithBoth = async (text: string) => {
      const created = await post(server.url, "/v1/messages", account.key, { message: text })
      expect(created.status).toBe(202)
      const delivery = await pollUntil(`a delivery of ${created.body.id}`, () =>
        receiver.deliveries.find((d) => d.headers["webhook-id"] === created.body.id), 600, 50)
      for (const secret of secrets) {
        expect(new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).toMatchObject({ data: { message: text } })
      }
    }
    await deliveredWithBoth("sealed, signed")
    await stop(server)
    server = await start(settingsOf(store))
    await deliveredWithBoth("after a restart with the same key")
    expect(server.output()).not.toContain(KEY)
  } finally {
    await stop(server)
    await receiver.stop()
  }
}

describe("webhook secrets sealed at rest (PETSTORE_WEBHOOK_SECRET_KEY)", () => {
  it("SQLite: the file holds the secrets sealed; deliveries are signed with them, also after a restart", async () => {
    const file = Path.join(folder, "sealed.db")
    await sealedThroughout(sqliteFile(file), async (accountId) => {
      const db = new Sqlite3(file, { readonly: true })
      try {
        return (db.prepare("SELECT secrets FROM webhook_endpoints WHERE account_id = ?").get(accountId) as { secrets: string }).secrets
      } finally {
        db.close()
      }
    })
  }, 60_000)

  it("under another key, or none, the secret does not open: the endpoint says so, one warning, every attempt recorded, the account's replay finds them once the right key is back", async () => {
    const file = Path.join(folder, "other-key.db")
    const receiver = await WebhookReceiver.start()
    const quick = { PETSTORE_WEBHOOK_RETRY_DELAYS: "0.05", PETSTORE_LOG_FORMAT: "json" }
    let server = await start({ ...settingsOf(sqliteFile(file)), ...quick })
    try {
      const account = await createAccount(server.url)
      const set = await admin(server, "PUT", `/accounts/${account.accountId}/webhook`, { url: receiver.url })
      expect(set.status).toBe(200)
      const before = new Date().toISOString()
      await stop(server)
      const other = Buffer.alloc(32, 0x17).toString("hex")
      for (const [label, key] of [["another key", { PETSTORE_WEBHOOK_SECRET_KEY: other }], ["no key", { PETSTORE_WEBHOOK_SECRET_KEY: "" }]] as const) {
        server = await start({ ...settingsOf(sqliteFile(file)), ...quick, ...key })
        // Warned at start, once for the endpoint, naming the variable (never the key).
        const warning = new RegExp(`webhook endpoint of account ${account.accountId}: its deliveries cannot be signed: .*PETSTORE_WEBHOOK_SECRET_KEY`)
        await pollUntil(`the start-up warning (${label})`, async () => warning.test(server.output()) ? true : undefined, 600, 20)
        const shown = await admin(server, "GET", `/accounts/${account.accountId}/webhook`)
        expect(shown.status).toBe(200)
        expect(shown.body).toMatchObject({ accountId: account.accountId, secretError: expect.stringMatching(/PETSTORE_WEBHOOK_SECRET_KEY/) })
        const created = await Promise.all([1, 2].map((i) => post(server.url, "/v1/messages", account.key, { message: `kept ${i}` })))
        for (const m of created) {
          expect(m.status).toBe(202)
          const failed = await pollUntil(`message ${m.body.id} to be failed (${label})`, async () => {
            const reply = await request(`${server.url}/v1/messages/${m.body.id}`, { key: account.key })
            return reply.body.status === "failed" ? reply.body : undefined
          }, 600, 50)
          // The account sees a stable reason; the attempts, the variable to fix.
          expect(failed.lastError).toBe("delivery could not be signed")
          const attempts = await admin(server, "GET", `/messages/${m.body.id}/attempts`)
          expect(attempts.body).toHaveLength(2)
          for (const a of attempts.body) expect(a).toMatchObject({ statusCode: null, error: expect.stringMatching(/PETSTORE_WEBHOOK_SECRET_KEY/) })
        }
        expect(server.output().split("\n").filter((line) => warning.test(line))).toHaveLength(1)
        expect(receiver.deliveries).toEqual([])
        expect(server.output()).not.toContain(other)
        expect(server.output()).not.toContain(KEY)
        await stop(server)
      }
      // The right key back: the account-wide replay finds every one of them.
      server = await start({ ...settingsOf(sqliteFile(file)), ...quick })
      const failedList = await admin(server, "GET", `/accounts/${account.accountId}/messages?status=failed`)
      expect(failedList.status).toBe(200)
      expect(failedList.body).toHaveLength(4)
      const replay = await admin(server, "POST", `/accounts/${account.accountId}/webhook/replay`, { since: before })
      expect(replay.status).toBe(202)
      expect([...replay.body.replayed].sort()).toEqual(failedList.body.map((m: { id: string }) => m.id).sort())
      await pollUntil("the replayed deliveries", async () => receiver.deliveries.length === 4 ? true : undefined, 600, 50)
      for (const delivery of receiver.deliveries) {
        expect(new Webhook(set.body.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toMatchObject({ data: { message: expect.stringMatching(/^kept/) } })
      }
    } finally {
      await stop(server)
      await receiver.stop()
    }
  }, 90_000)

  it("a key that is not 32 bytes is refused at start, naming the variable and not the value", async () => {
    const run = await cli({ ...sqliteFile(Path.join(folder, "refused.db")), PETSTORE_WEBHOOK_SECRET_KEY: "c2hvcnQta2V5" }, ["serve"])
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/PETSTORE_WEBHOOK_SECRET_KEY must be 32 bytes/)
    expect(run.stderr).not.toContain("c2hvcnQta2V5")
  }, 30_000)
})

const database = await TestDatabase.make()
if ("skip" in database) {
  describe.skip(`webhook secrets sealed at rest on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("webhook secrets sealed at rest on PostgreSQL", () => {
    it("the database holds the secrets sealed; deliveries are signed with them, also after a restart", async () => {
      const url = await database.freshUrl()
      const sql = TestDatabase.connect(url)
      try {
        await sealedThroughout({ PETSTORE_DATABASE: url }, async (accountId) => {
          const rows = await sql.query<{ secrets: string }>("SELECT secrets::text AS secrets FROM webhook_endpoints WHERE account_id = $1", [accountId])
          return rows[0]!.secrets
        })
      } finally {
        await sql.end()
      }
    }, 60_000)
  })
}
