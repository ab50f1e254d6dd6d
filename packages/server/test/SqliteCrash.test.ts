/**
 * Crash safety of the standalone server on SQLite, end to end: a real server process takes
 * concurrent `POST /v1/pets` and `POST /v1/messages`, is killed with SIGKILL while requests are in
 * flight, and is started again on the same file. Every acknowledged pet (201) and message (202)
 * must be there exactly once, and every accepted message must reach `delivered`.
 *
 * No timing thresholds: the kill happens after a number of acknowledgements, and every wait is a
 * bounded poll with a generous limit.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import Sqlite3 from "better-sqlite3"
import { exited, killUnderLoad, pollUntil, sqliteFile, start } from "./support/ServerProcess.js"
import { createAccount } from "./support/SqliteAccount.js"

describe("crash safety (SIGKILL under load)", () => {
  it("after kill -9 and a restart, every acknowledged pet and message exists exactly once, and every accepted message is delivered", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-crash-"))
    const filename = Path.join(folder, "petstore.db")
    const key = await createAccount(filename)
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }

    const first = await start(sqliteFile(filename))
    const ackedPets = new Map<string, number>() // name → id
    const ackedMessages = new Map<string, string>() // text → id
    const sentPets = new Set<string>()
    const sentMessages = new Set<string>()
    let stop = false
    let failure: unknown = undefined

    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const text = `crash ${n}-${i}`
        const isPet = i % 2 === 0
        ;(isPet ? sentPets : sentMessages).add(text)
        try {
          const response = await fetch(`${first.url}/v1/${isPet ? "pets" : "messages"}`, {
            method: "POST",
            headers,
            body: JSON.stringify(isPet ? { name: text, categoryId: 1 + (i % 7) } : { message: text })
          })
          const body = await response.json() as { id: number | string }
          if (isPet && response.status === 201) ackedPets.set(text, body.id as number)
          else if (!isPet && response.status === 202) ackedMessages.set(text, body.id as string)
          else throw new Error(`unexpected ${response.status}: ${JSON.stringify(body)}`)
        } catch (error) {
          // Only the kill may interrupt a request: its outcome is unknown, and it is not acknowledged.
          if (!stop) failure ??= error
          return
        }
      }
    }
    const clients = Array.from({ length: 24 }, (_, n) => client(n))
    // Kill once enough was acknowledged, with requests still in flight.
    await pollUntil("acknowledgements", () => {
      if (failure !== undefined) throw failure
      return ackedPets.size >= 300 && ackedMessages.size >= 300 ? true : undefined
    }, 2_400, 50)
    await killUnderLoad(first, () => {
      stop = true
      return Promise.all(clients)
    }, () => failure)

    const second = await start(sqliteFile(filename))
    try {
      // Every pet, by following the next links: ids strictly increase (no repeats, nothing skipped).
      const listed: Array<{ id: number; name: string }> = []
      let next: string | undefined = "/v1/pets?limit=100"
      while (next !== undefined) {
        const response = await fetch(`${second.url}${next}`, { headers })
        expect(response.status).toBe(200)
        listed.push(...await response.json() as Array<{ id: number; name: string }>)
        next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1]
      }
      const ids = listed.map((p) => p.id)
      expect(ids).toStrictEqual([...ids].sort((a, b) => a - b))
      expect(new Set(ids).size).toBe(ids.length)
      const byName = new Map<string, Array<number>>()
      for (const p of listed) byName.set(p.name, [...(byName.get(p.name) ?? []), p.id])
      for (const [name, id] of ackedPets) expect(byName.get(name)).toStrictEqual([id])
      // Unacknowledged requests may or may not have been kept, but never twice, and nothing else appears.
      for (const [name, found] of byName) {
        expect(found).toHaveLength(1)
        expect(sentPets.has(name)).toBe(true)
      }

      // Every accepted message reaches delivered (a claim held by the killed process is retaken when
      // its lease, 30 s, runs out).
      const statusOf = async (id: string) => {
        const response = await fetch(`${second.url}/v1/messages/${id}`, { headers })
        expect(response.status).toBe(200)
        return (await response.json() as { status: string }).status
      }
      const pending = new Set(ackedMessages.values())
      await pollUntil("every accepted message to be delivered", async () => {
        for (const id of [...pending]) if ((await statusOf(id)) === "delivered") pending.delete(id)
        return pending.size === 0 ? true : undefined
      }, 240, 500)

      // Exactly once in the outbox, read from the file itself.
      const db = new Sqlite3(filename, { readonly: true })
      try {
        const rows = db.prepare("SELECT id, message FROM messages").all() as Array<{ id: string; message: string }>
        const byText = new Map<string, Array<string>>()
        for (const r of rows) byText.set(r.message, [...(byText.get(r.message) ?? []), r.id])
        for (const [text, id] of ackedMessages) expect(byText.get(text)).toStrictEqual([id])
        for (const [text, found] of byText) {
          expect(found).toHaveLength(1)
          expect(sentMessages.has(text)).toBe(true)
        }
        const retaken = db.prepare("SELECT count(*) AS n FROM messages WHERE attempts > 1").get() as { n: number }
        console.log(
          `crash test: ${ackedPets.size} pets and ${ackedMessages.size} messages acknowledged before SIGKILL; ` +
            `${listed.length - ackedPets.size} unacknowledged pets and ${rows.length - ackedMessages.size} unacknowledged messages ` +
            `were kept; ${retaken.n} messages were claimed again after the crash`
        )
      } finally {
        db.close()
      }
    } finally {
      second.process.kill("SIGTERM")
      await exited(second.process)
    }
    expect(second.process.exitCode).toBe(0)
  }, 480_000)
})
