/**
 * The webhook commands of the `petstore` binary on a SQLite file, next to a server on the same file:
 * set, show (never the secret), rotate-secret, remove; a message's attempts; replay of one message and
 * of an account's failures since a time, delivered by the running server. Errors are one line.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { ADMIN_TOKEN, createAccount, get, post } from "./support/Http.js"
import { cli, pollUntil, type Server, sqliteFile, start, stop } from "./support/ServerProcess.js"
import * as WebhookReceiver from "./support/WebhookReceiver.js"

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-webhooks-cli-"))
const store = { ...sqliteFile(Path.join(folder, "petstore.db")), PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true" }
let server: Server | undefined
afterAll(() => stop(server))

const valueOf = (stdout: string, label: string) => new RegExp(`^${label}: (.*)$`, "m").exec(stdout)?.[1]

describe("petstore webhooks (command line)", () => {
  it("set prints the secret once; show never does; rotate-secret and remove; bad input is one line and exit 1", async () => {
    server = await start({ ...store, PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, PETSTORE_WEBHOOK_RETRY_DELAYS: "0.05,0.05" })
    const account = await createAccount(server.url)
    const set = await cli(store, ["webhooks", "set", "--account", account.accountId, "--url", "https://hooks.example.com/in"])
    expect(set.code).toBe(0)
    const secret = valueOf(set.stdout, "secret")!
    expect(secret).toMatch(/^whsec_/)
    expect(set.stderr).toContain("shown only this once")
    const shown = await cli(store, ["webhooks", "show", "--account", account.accountId])
    expect(shown.code).toBe(0)
    expect(valueOf(shown.stdout, "url")).toBe("https://hooks.example.com/in")
    expect(shown.stdout).not.toContain(secret.slice(6))
    const rotated = await cli(store, ["webhooks", "rotate-secret", "--account", account.accountId, "--grace-seconds", "60"])
    expect(rotated.code).toBe(0)
    expect(valueOf(rotated.stdout, "secret")).not.toBe(secret)
    expect(valueOf(rotated.stdout, "previous secret signs until")).toMatch(/^\d{4}-/)
    expect((await cli(store, ["webhooks", "remove", "--account", account.accountId])).code).toBe(0)
    for (
      const [args, message] of [
        [["webhooks", "show", "--account", account.accountId], /has no webhook endpoint/],
        [["webhooks", "set", "--account", account.accountId, "--url", "ftp://x.example"], /--url: must be an http or https URL/],
        [["webhooks", "set", "--account", "acc_nope", "--url", "https://x.example"], /unknown account/],
        [["webhooks", "attempts", "msg_nope"], /unknown message/],
        [["webhooks", "replay", "--account", account.accountId, "--since", "yesterday"], /--since/],
        [["webhooks", "replay"], /MESSAGE_ID, or --account and --since/]
      ] as const
    ) {
      const failed = await cli(store, [...args])
      expect([args.join(" "), failed.code]).toEqual([args.join(" "), 1])
      expect(failed.stderr.trim().split("\n").filter((l) => !l.startsWith("warning:"))).toEqual([expect.stringMatching(message)])
    }
  }, 180_000)

  it("attempts lists a failed message's attempts; replay (one message, or an account's failures since a time) has the server deliver them", async () => {
    const receiver = await WebhookReceiver.start()
    receiver.status = 503
    const account = await createAccount(server!.url)
    expect((await cli(store, ["webhooks", "set", "--account", account.accountId, "--url", receiver.url])).code).toBe(0)
    const ids: Array<string> = []
    for (const text of ["one", "two"]) ids.push((await post(server!.url, "/v1/messages", account.key, { message: text })).body.id)
    const statusOf = async (id: string) => (await get(server!.url, `/v1/messages/${id}`, account.key)).body
    for (const id of ids) await pollUntil(`${id} failed`, async () => (await statusOf(id)).status === "failed" || undefined, 600, 50)
    const attempts = await cli(store, ["webhooks", "attempts", ids[0]!])
    expect(attempts.code).toBe(0)
    const rows = attempts.stdout.trim().split("\n")
    expect(rows[0]).toMatch(/^ATTEMPT\s+STARTED\s+DURATION MS\s+STATUS\s+ERROR$/)
    expect(rows.slice(1).map((r) => r.split(/\s+/)[3])).toEqual(["503", "503", "503"])

    // The account's failed messages, a page at a time.
    const page = await cli(store, ["webhooks", "messages", "--account", account.accountId, "--status", "failed", "--limit", "1"])
    expect(page.code).toBe(0)
    const lines = page.stdout.trim().split("\n")
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+ATTEMPTS\s+CREATED\s+UPDATED\s+LAST ERROR$/)
    expect(lines[1]).toMatch(new RegExp(`^${ids[0]}\\s+failed\\s+3\\s.*endpoint answered 503$`))
    const next = /^next page: --cursor (\S+)$/.exec(lines[2] ?? "")
    expect(next).not.toBeNull()
    const rest = await cli(store, ["webhooks", "messages", "--account", account.accountId, "--status", "failed", "--cursor", next![1]!])
    expect(rest.stdout.trim().split("\n").slice(1).map((l) => l.split(/\s+/)[0])).toEqual([ids[1]])
    const badCursor = await cli(store, ["webhooks", "messages", "--account", account.accountId, "--cursor", "nope"])
    expect([badCursor.code, badCursor.stderr]).toEqual([1, expect.stringMatching(/--cursor: not a cursor/)])

    receiver.status = 200
    const one = await cli(store, ["webhooks", "replay", ids[0]!])
    expect(one.stdout.trim()).toBe(`replaying: ${ids[0]} (queued)`)
    await pollUntil("the replayed message delivered", async () => (await statusOf(ids[0]!)).status === "delivered" || undefined, 600, 50)
    const since = new Date(Date.now() - 3_600_000).toISOString()
    const bulk = await cli(store, ["webhooks", "replay", "--account", account.accountId, "--since", since])
    expect(bulk.stdout.trim()).toBe(`replaying: ${ids[1]}`)
    await pollUntil("the account's failure delivered", async () => (await statusOf(ids[1]!)).status === "delivered" || undefined, 600, 50)
    expect(new Set(receiver.deliveries.slice(-2).map((d) => d.headers["webhook-id"]))).toEqual(new Set(ids))
    await receiver.stop()
  }, 120_000)
})
