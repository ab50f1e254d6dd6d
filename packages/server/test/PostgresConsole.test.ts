/**
 * The console's sessions on two real server processes sharing one PostgreSQL database: a session
 * opened on one instance is valid on the other (no sticky sessions), and a sign-out on either ends
 * it on both. Also the console as the built server serves it: its shell and the build's files.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, request } from "./support/Http.js"
import { type Server, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()

if ("skip" in database) {
  describe.skip(`console sessions on two PostgreSQL instances (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("console sessions on two instances of one PostgreSQL database", () => {
    let a: Server
    let b: Server

    beforeAll(async () => {
      const url = await database.freshUrl()
      const settings = { PETSTORE_DATABASE: url, PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, PETSTORE_DATABASE_POOL_SIZE: "2" }
      ;[a, b] = await Promise.all([start(settings), start(settings)])
    }, 60_000)
    afterAll(async () => {
      await Promise.all([stop(a), stop(b)])
    })

    /** An admin read with the session, from each server's own origin. */
    const adminRead = (server: Server, cookie: string, csrf: string) =>
      request(`${server.url}/admin/v1/health`, { headers: { cookie, "x-csrf-token": csrf, origin: server.url } })

    it("a session opened on one instance works on the other; signed out on the other, it is refused on both", async () => {
      const signIn = await request(`${a.url}/console/session`, { method: "POST", body: JSON.stringify({ token: ADMIN_TOKEN }) })
      expect(signIn.status).toBe(200)
      const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!
      const csrf = (signIn.body as { csrfToken: string }).csrfToken
      for (const server of [a, b]) {
        const read = await adminRead(server, cookie, csrf)
        expect(read.status).toBe(200)
        expect(read.body).toMatchObject({ ready: true, draining: false })
        const session = await request(`${server.url}/console/session`, { headers: { cookie } })
        expect(session.body).toStrictEqual(signIn.body)
      }
      const out = await request(`${b.url}/console/session`, { method: "DELETE", headers: { cookie, "x-csrf-token": csrf, origin: b.url } })
      expect(out.status).toBe(204)
      for (const server of [a, b]) {
        const refused = await adminRead(server, cookie, csrf)
        expect(refused.status).toBe(401)
        expect(refused.body).toMatchObject({ code: "unauthorized" })
      }
    })

    it("serves the console's shell and the files of its build, as packed with the server", async () => {
      const shell = await fetch(`${a.url}/console/accounts`)
      expect(shell.status).toBe(200)
      expect(shell.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      const html = await shell.text()
      const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!)
      expect(assets.length).toBeGreaterThan(0)
      for (const asset of assets) {
        const file = await fetch(`${a.url}${asset}`, { headers: { "accept-encoding": "br" } })
        expect(file.status).toBe(200)
        expect(file.headers.get("content-encoding")).toBe("br")
        expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      }
    })
  })
}
