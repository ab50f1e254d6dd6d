/**
 * Keyed creates (`Idempotency-Key`) on SQLite under kill -9: a real server process takes concurrent
 * keyed `POST /v1/pets` and `POST /v1/messages`, is killed with SIGKILL while requests are in flight,
 * and is started again on the same file. Every key sent is then retried: each names exactly one pet
 * or message (the acknowledged one, replayed, when it was acknowledged), none lost, none doubled.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import Sqlite3 from "better-sqlite3"
import { exited, pollUntil, sqliteFile, start, stop } from "./support/ServerProcess.js"
import { createAccount } from "./support/SqliteAccount.js"

describe("keyed creates on SQLite under kill -9", () => {
  it("every key sent before the kill, retried after the restart, names exactly one pet or message", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-keyed-crash-"))
    const filename = Path.join(folder, "petstore.db")
    const key = await createAccount(filename)
    const send = (base: string, text: string, isPet: boolean) =>
      fetch(`${base}/v1/${isPet ? "pets" : "messages"}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": text },
        body: JSON.stringify(isPet ? { name: text, categoryId: 2 } : { message: text })
      })
    const first = await start(sqliteFile(filename))
    const sent: Array<{ text: string; isPet: boolean }> = []
    const acked = new Map<string, string>()
    let stopped = false
    let failure: unknown = undefined
    const client = async (n: number) => {
      for (let i = 0; !stopped; i++) {
        const text = `keyed-crash ${n}-${i}`
        const isPet = i % 2 === 0
        sent.push({ text, isPet })
        try {
          const response = await send(first.url, text, isPet)
          const body = await response.json() as { id: number | string }
          if (response.status === (isPet ? 201 : 202)) acked.set(text, String(body.id))
          else throw new Error(`unexpected ${response.status}: ${JSON.stringify(body)}`)
        } catch (error) {
          if (!stopped) failure ??= error
          return
        }
      }
    }
    const clients = Array.from({ length: 12 }, (_, n) => client(n))
    await pollUntil("acknowledgements", () => {
      if (failure !== undefined) throw failure
      return acked.size >= 300 ? true : undefined
    }, 2_400, 50)
    first.process.kill("SIGKILL")
    stopped = true
    await Promise.all(clients)
    await exited(first.process)
    if (failure !== undefined) throw failure

    const second = await start(sqliteFile(filename))
    try {
      for (const { isPet, text } of sent) {
        const response = await send(second.url, text, isPet)
        const body = await response.json() as { id: number | string }
        expect(response.status, `${text}: ${JSON.stringify(body)}`).toBe(isPet ? 201 : 202)
        const ackedId = acked.get(text)
        if (ackedId !== undefined) {
          expect(String(body.id)).toBe(ackedId)
          expect(response.headers.get("idempotent-replayed")).toBe("true")
        }
      }
    } finally {
      await stop(second)
    }
    const db = new Sqlite3(filename, { readonly: true })
    try {
      const pets = db.prepare("SELECT name, count(*) AS n FROM pets GROUP BY name").all() as Array<{ name: string; n: number }>
      const messages = db.prepare("SELECT message, count(*) AS n FROM messages GROUP BY message").all() as Array<{ message: string; n: number }>
      expect(pets.map((p) => p.name).sort()).toStrictEqual(sent.filter((s) => s.isPet).map((s) => s.text).sort())
      expect(pets.every((p) => p.n === 1)).toBe(true)
      expect(messages.map((m) => m.message).sort()).toStrictEqual(sent.filter((s) => !s.isPet).map((s) => s.text).sort())
      expect(messages.every((m) => m.n === 1)).toBe(true)
    } finally {
      db.close()
    }
    Fs.rmSync(folder, { recursive: true, force: true })
  }, 120_000)
})
