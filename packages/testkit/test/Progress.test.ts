/**
 * The progress of a long command on standard error: a line every few seconds off a terminal, one
 * live line redrawn on a terminal, other lines kept above it. Timers are real but short; the test
 * waits for the writes it needs (bounded), never a fixed time.
 */
import { describe, expect, it } from "vitest"
import * as Progress from "../src/internal/Progress.js"

const recording = (isTTY: boolean) => {
  const writes: Array<string> = []
  return { writes, stream: { isTTY, columns: 40, write: (text: string) => void writes.push(text) } }
}

const until = async (what: string, check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  if (!check()) throw new Error(`gave up waiting for ${what}`)
}

describe("progress", () => {
  it("off a terminal: whole lines at its pace, the state with the seconds since the start; logged lines in between", async () => {
    const { stream, writes } = recording(false)
    const progress = Progress.start(stream, { everyMs: 20 })
    progress.set("conformance: 3 of 600 sequences run, 41 requests")
    await until("two progress lines", () => writes.length >= 2)
    progress.log("a line of its own")
    progress.end()
    const count = writes.length
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(writes.length).toBe(count)
    expect(writes.every((w) => w.endsWith("\n") && !w.includes("\r"))).toBe(true)
    expect(writes[0]).toMatch(/^conformance: 3 of 600 sequences run, 41 requests, \d+ s\n$/)
    expect(writes).toContain("a line of its own\n")
  })

  it("on a terminal: one line redrawn in place, cut to the width, cleared for a logged line and at the end", async () => {
    const { stream, writes } = recording(true)
    const progress = Progress.start(stream, { redrawMs: 10 })
    progress.set("fuzz: 1200 of 2000 requests, 0 failures, and a long tail of words")
    await until("a redraw", () => writes.length >= 1)
    expect(writes[0]).toBe("\r\u001b[2Kfuzz: 1200 of 2000 requests, 0 failure…")
    expect(writes[0]!.length).toBe("\r\u001b[2K".length + 39)
    progress.log("found something")
    expect(writes.slice(-3, -1)).toEqual(["\r\u001b[2K", "found something\n"])
    progress.end()
    expect(writes.at(-1)).toBe("\r\u001b[2K")
  })
})
