/** The bounds on connections and their defaults (src/internal/hosts/connections/limits.ts). */
import { describe, expect, it } from "vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Limits from "../../src/internal/hosts/connections/limits.js"

describe("connection limits", () => {
  it("reads the soft limit on open files from a limits file; none when it is missing or says nothing", () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "limits-"))
    try {
      const file = Path.join(dir, "limits")
      Fs.writeFileSync(file, "Limit                     Soft Limit           Hard Limit           Units\nMax open files            4096                 524288               files\n")
      expect(Limits.openFileLimit(file)).toBe(4096)
      Fs.writeFileSync(file, "Max processes 10 10 processes\n")
      expect(Limits.openFileLimit(file)).toBeUndefined()
      expect(Limits.openFileLimit(Path.join(dir, "absent"))).toBeUndefined()
    } finally {
      Fs.rmSync(dir, { recursive: true })
    }
  })

  it("the cap is 10,000, or the file limit minus what is reserved for the rest, and at least 1", () => {
    expect(Limits.connectionCap(undefined)).toBe(10_000)
    expect(Limits.connectionCap(1_000_000)).toBe(10_000)
    expect(Limits.connectionCap(1_024)).toBe(1_024 - Limits.RESERVED_FILES)
    expect(Limits.connectionCap(Limits.RESERVED_FILES)).toBe(1)
  })

  it("the defaults: the cap of this process, 16 in flight, 64 KiB unread, 2 s of lingering", () => {
    expect(Limits.defaults()).toEqual({
      maxConnections: Limits.connectionCap(Limits.openFileLimit()),
      maxInFlight: 16,
      maxBufferedBytes: 65_536,
      lingerMillis: 2_000
    })
  })
})
