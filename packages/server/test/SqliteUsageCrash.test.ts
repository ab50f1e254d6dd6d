/**
 * What a kill -9 loses of the usage counts, end to end: a server on a SQLite file, flushing its
 * counts every `PETSTORE_USAGE_FLUSH_SECONDS`, answers concurrent reads and is killed with SIGKILL
 * while they are in flight; started again on the file, the account's usage must lie between what
 * the client saw, less the requests answered in the window before the kill that the last flush may
 * not have written (one interval, plus the write in progress: `LOSS_WINDOW_MS`), and what the client
 * saw plus the requests the kill cut off (counted by the server, their answers lost on the wire).
 *
 * No timing thresholds: the kill comes after a number of answers and a few flush intervals, and the
 * bounds come from the times the client recorded.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { exited, killUnderLoad, pollUntil, sqliteFile, start } from "./support/ServerProcess.js"
import { createAccount } from "./support/SqliteAccount.js"

const FLUSH_SECONDS = 0.5
/** A flush waits an interval after the last one ended, then drains and writes: at most an interval and two writes go unwritten. */
const LOSS_WINDOW_MS = 2 * FLUSH_SECONDS * 1_000

describe("usage counts across a kill -9", () => {
  it("after kill -9 and a restart, the usage counted is at most what was answered and lacks at most what was answered in the last flush window", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-usage-crash-"))
    const filename = Path.join(folder, "petstore.db")
    const key = await createAccount(filename)
    const headers = { authorization: `Bearer ${key}` }
    const settings = { ...sqliteFile(filename), PETSTORE_USAGE_FLUSH_SECONDS: String(FLUSH_SECONDS) }
    const startedAt = Date.now()
    const hour = new Date(Math.floor(startedAt / 3_600_000) * 3_600_000).toISOString()

    const first = await start(settings)
    // When each answer arrived (monotonic ms), and how many requests the kill cut off.
    const answeredAt: Array<number> = []
    let cutOff = 0
    let stop = false
    let failure: unknown = undefined
    const client = async () => {
      while (!stop) {
        try {
          const response = await fetch(`${first.url}/v1/pets?limit=1`, { headers })
          await response.arrayBuffer()
          if (response.status !== 200) throw new Error(`unexpected ${response.status}`)
          answeredAt.push(performance.now())
        } catch (error) {
          // Only the kill may interrupt a request: the server may have counted it.
          if (stop) cutOff++
          else failure ??= error
          return
        }
      }
    }
    const clients = Array.from({ length: 16 }, () => client())
    // Kill after several flushes, with requests in flight.
    const loadStarted = performance.now()
    await pollUntil("answers over several flush intervals", () => {
      if (failure !== undefined) throw failure
      return answeredAt.length >= 1_000 && performance.now() - loadStarted >= 4 * LOSS_WINDOW_MS ? true : undefined
    }, 2_400, 50)
    const killedAt = performance.now()
    await killUnderLoad(first, () => {
      stop = true
      return Promise.all(clients)
    }, () => failure)
    const seen = answeredAt.length
    const lastWindow = answeredAt.filter((at) => at >= killedAt - LOSS_WINDOW_MS).length

    const second = await start(settings)
    try {
      // The first request the new server answers: what it reads was written before the kill (it counts itself only later).
      const response = await fetch(`${second.url}/v1/usage?from=${hour}&to=${new Date(Date.now() + 3_600_000).toISOString()}`, { headers })
      expect(response.status).toBe(200)
      const body = (await response.json()) as { buckets: ReadonlyArray<{ total: number; allowed: number }> }
      const counted = body.buckets.reduce((n, b) => n + b.total, 0)
      console.log(
        `usage crash test: ${seen} answers seen, ${counted} counted after the restart, ${lastWindow} answered in the last ` +
          `${LOSS_WINDOW_MS} ms before the kill, ${cutOff} cut off by it`
      )
      expect(body.buckets.reduce((n, b) => n + b.allowed, 0)).toBe(counted)
      expect(counted).toBeLessThanOrEqual(seen + cutOff)
      expect(counted).toBeGreaterThanOrEqual(seen - lastWindow)
    } finally {
      second.process.kill("SIGTERM")
      await exited(second.process)
    }
    expect(second.process.exitCode).toBe(0)
  }, 120_000)
})
