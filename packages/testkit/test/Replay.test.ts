/**
 * A failure prints a command line that replays it: the seed, fast-check's path to the shrunk
 * sequence and the commands' replay path. Run with those, the suite runs that sequence alone and
 * fails the same way.
 */
import { describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "../src/index.js"
import { ADMIN_TOKEN, startServer } from "./support/InProcessServer.js"
import { latestNotFound } from "./support/PlantedFaults.js"

const option = (line: string, flag: string): string | undefined => {
  const m = new RegExp(`${flag} '?([^' ]+)'?`).exec(line)
  return m === null ? undefined : m[1]
}

describe("replaying a failure", () => {
  it("the printed command line runs the shrunk sequence again and fails the same way", async () => {
    const first = await startServer({ corrupt: latestNotFound("pets", 201) })
    let replay: string
    let message: string
    try {
      const report = await runConformance({ baseUrl: first.url, adminToken: ADMIN_TOKEN, seed: 11 })
      expect(report.ok).toBe(false)
      replay = report.failure!.replay
      message = report.failure!.message
      expect(formatReport(report)).toContain(`Replay it with:\n  ${replay}`)
    } finally {
      await first.close()
    }
    expect(replay).toMatch(/^petstore-conformance --base-url http:\/\/127\.0\.0\.1:\d+ --admin-token "\$ADMIN_TOKEN" --seed 11 --path \d+(:\d+)* --replay-path '\S+'$/)
    const seed = Number(option(replay, "--seed"))
    const path = option(replay, "--path")
    const replayPath = option(replay, "--replay-path")

    const second = await startServer({ corrupt: latestNotFound("pets", 201) })
    try {
      const again = await runConformance({ baseUrl: second.url, adminToken: ADMIN_TOKEN, seed, path, replayPath })
      expect(again.ok).toBe(false)
      expect(again.runs).toBe(1)
      expect(again.failure!.message.replace(/\d+/g, "N")).toBe(message.replace(/\d+/g, "N"))
    } finally {
      await second.close()
    }
  }, 60_000)
})
