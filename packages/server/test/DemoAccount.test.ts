/**
 * The demo account's key is for the person starting the server, never for its log stream: off a
 * terminal, standard output carries the JSON log lines (which a container's log store keeps) and the
 * key goes to standard error; on a terminal it is shown there. Real server processes, real HTTP.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { BIN, freePort, pollUntil, start, stop } from "./support/ServerProcess.js"

const KEY = /psk_live_[0-9A-Za-z]{32}/

const pets = (url: string, key: string) => fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })

describe("the demo account's key", () => {
  it("off a terminal: on standard error only; standard output (JSON lines) says an account was created, without the key", async () => {
    const server = await start({ PETSTORE_STORE: "memory" })
    try {
      const key = KEY.exec(server.stderr())?.[0]
      expect(key, server.output()).toBeDefined()
      expect(server.stderr()).toContain("shown only this once")
      expect((await pets(server.url, key!)).status).toBe(200)
      const lines = server.stdout().split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line) as { msg: string })
      expect(lines.map((line) => line.msg)).toContainEqual(
        expect.stringMatching(/^demo account acc_[0-9A-Za-z]+ created \(plan free\); its key was shown once on standard error$/)
      )
      expect(server.stdout()).not.toMatch(/psk_/)
    } finally {
      await stop(server)
    }
  })

  it("on a terminal: shown there", async () => {
    const port = await freePort()
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("PETSTORE_")) env[k] = v
    // util-linux's `script` runs the server on a pseudo-terminal of its own; the group is this test's.
    const child = spawn("script", ["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} serve`, "/dev/null"], {
      env: { ...env, PETSTORE_STORE: "memory", PORT: String(port), HOST: "127.0.0.1", NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true
    })
    let output = ""
    child.stdout!.on("data", (chunk) => (output += String(chunk)))
    child.stderr!.on("data", (chunk) => (output += String(chunk)))
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    try {
      const key = await pollUntil("the key on the terminal", () => {
        if (child.exitCode !== null) throw new Error(`script exited with ${child.exitCode}:\n${output}`)
        return /listening on/.test(output) ? KEY.exec(output)?.[0] : undefined
      }, 600, 100)
      expect(output).toContain("shown only this once")
      expect(output).toMatch(/its key was shown once on the terminal/)
      expect((await pets(`http://127.0.0.1:${port}`, key)).status).toBe(200)
    } finally {
      process.kill(-child.pid!, "SIGTERM")
      await exited
    }
  })
})
