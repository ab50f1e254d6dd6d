/**
 * Usage on a SQLite file, through a real server and the `petstore usage` command: what the server
 * counted is written when it stops gracefully (its flush interval set far beyond the test), and
 * the command prints it per bucket and per key, with a bar per row, plain when not on a terminal.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ADMIN_TOKEN, createAccount, get, request } from "./support/Http.js"
import { cli, sqliteFile, start, stop } from "./support/ServerProcess.js"

const directory = mkdtempSync(join(tmpdir(), "petstore-usage-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

describe("usage on SQLite and petstore usage", () => {
  it("a graceful stop writes what was counted; the command shows it per hour and per key, and the busiest accounts", async () => {
    const settings = { ...sqliteFile(join(directory, "usage.db")), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, PETSTORE_USAGE_FLUSH_SECONDS: "3600" }
    const server = await start(settings)
    let account
    try {
      account = await createAccount(server.url, { plan: "enterprise", limits: { perMinute: 3, perDay: 1_000 } })
      const second = await request(`${server.url}/admin/v1/accounts/${account.accountId}/keys`, { method: "POST", key: ADMIN_TOKEN, body: "{}" })
      const statuses = []
      for (const path of ["/v1/pets", "/v1/pets/4242", "/v1/pets", "/v1/pets", "/v1/pets"]) statuses.push((await get(server.url, path, account.key)).status)
      statuses.push((await get(server.url, "/v1/pets", second.body.key)).status)
      expect(statuses).toStrictEqual([200, 404, 200, 429, 429, 429])
    } finally {
      await stop(server)
    }

    const shown = await cli({ ...settings, NO_COLOR: "1" }, ["usage", account.accountId, "--since", "2h", "--by-key"])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).not.toMatch(/\x1b\[/)
    const rows = shown.stdout.split("\n").filter((line) => /^\d{4}-\d{2}-\d{2} \d{2}:00 /.test(line))
    // The account's hours, then each key's: 3 hours (the range rounded to whole hours) per table.
    expect(rows.length).toBe(9)
    // Summed over the account's table (an hour may have turned while the test ran).
    const cells = rows.slice(0, 3).map((row) => row.split(/\s+/))
    const sums = [2, 3, 4, 5, 6, 7, 8].map((column) => cells.reduce((n, c) => n + Number(c[column]), 0))
    // TOTAL, ALLOWED, RATE, QUOTA, BANNED, 4XX, 5XX
    expect(sums).toStrictEqual([6, 3, 3, 0, 0, 1, 0])
    expect(cells.some((c) => /^█+▒+$/.test(c[9] ?? ""))).toBe(true)
    expect(shown.stdout).toContain(`key ${account.keyId}`)

    const top = await cli(settings, ["usage", "--top", "--since", "1d"])
    expect(top.code, top.stderr).toBe(0)
    expect(top.stdout).toMatch(new RegExp(`^${account.accountId}\\s+6\\s+3\\s+█+▒+$`, "m"))

    const bad = await cli(settings, ["usage", account.accountId, "--since", "forever"])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("--since")
  }, 60_000)
})
