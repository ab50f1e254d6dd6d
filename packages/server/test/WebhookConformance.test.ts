/**
 * The conformance checker with its webhook receiver (`--webhook-receiver`) against the real server
 * process on a SQLite file: every message accepted during the run arrives at the receiver, signed
 * with the secret the admin API answered; a server that keeps to https and public addresses (the
 * default) refuses the receiver's URL, and the checker says which setting allows it.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "@petstore/testkit"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { ADMIN_TOKEN } from "./support/Http.js"
import { sqliteFile, start, stop } from "./support/ServerProcess.js"

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-webhook-conformance-"))
afterAll(() => Fs.rmSync(folder, { recursive: true, force: true }))

let files = 0
const withServer = async (settings: Record<string, string>, body: (url: string) => Promise<void>) => {
  const server = await start({ ...sqliteFile(Path.join(folder, `${++files}.db`)), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, ...settings })
  try {
    await body(server.url)
  } finally {
    await stop(server)
  }
}

describe("conformance with the webhook receiver, against the server process (SQLite)", () => {
  it("with private addresses allowed: every accepted message is delivered, verified and as submitted", async () => {
    await withServer({ PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true" }, async (url) => {
      const report = await runConformance({ baseUrl: url, adminToken: ADMIN_TOKEN, seed: 2721, numRuns: 40, webhookReceiver: true })
      expect(report.ok, formatReport(report)).toBe(true)
      expect(report.webhooks!.messages).toBeGreaterThanOrEqual(3)
      expect(report.webhooks!.deliveries).toBeGreaterThanOrEqual(report.webhooks!.messages)
      // An endpoint per account the run created: the checker's own and four per sequence.
      expect(report.webhooks!.endpoints).toBe(1 + 4 * report.runs)
    })
  }, 180_000)

  it("by default the server refuses the receiver's plain-http URL on loopback, and the checker names the setting", async () => {
    await withServer({}, async (url) => {
      const report = await runConformance({ baseUrl: url, adminToken: ADMIN_TOKEN, seed: 2722, numRuns: 3, webhookReceiver: true })
      expect(report.ok).toBe(false)
      expect(report.failure?.message).toMatch(/→ 400: the server refused the receiver's URL \(plain http, on a loopback or private address\): run it with PETSTORE_WEBHOOK_ALLOW_PRIVATE=true/)
    })
  }, 60_000)
})
