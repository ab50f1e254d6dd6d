/**
 * Every package has a README with an example that runs, and a LICENSE; its package.json says where it
 * comes from, which Node it needs, what it ships and how to find it. (The PostgreSQL and Redis
 * packages run their examples in their own tests, against a database and a key prefix of their own.)
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir, runExample } from "./support/ReadmeExample.js"

const PACKAGES = ["core", "http-node", "sqlite", "postgres", "redis", "server", "testkit"]

describe.each(PACKAGES)("@petstore/%s", (name) => {
  const manifest = JSON.parse(Fs.readFileSync(Path.join(packageDir(name), "package.json"), "utf8"))

  it("ships a README and a LICENSE, and says where it comes from, what it needs and what it ships", () => {
    expect(Fs.existsSync(Path.join(packageDir(name), "LICENSE"))).toBe(true)
    expect(Fs.readFileSync(Path.join(packageDir(name), "LICENSE"), "utf8")).toMatch(/^MIT License/)
    expect(manifest.license).toBe("MIT")
    expect(manifest.repository).toEqual({ type: "git", url: expect.stringMatching(/^git\+https:/), directory: `packages/${name}` })
    expect(manifest.engines.node).toMatch(/^>=20/)
    expect(manifest.files).toEqual(expect.arrayContaining(["dist", "README.md", "LICENSE"]))
    expect(manifest.keywords.length).toBeGreaterThan(0)
  })

  it("takes effect (and the @effect/platform packages) as peers, on the 3.x line", () => {
    expect(manifest.dependencies?.effect).toBeUndefined()
    expect(manifest.peerDependencies.effect).toMatch(/^\^3\.\d+/)
    for (const shared of ["@effect/platform", "@effect/platform-node"]) {
      expect(manifest.dependencies?.[shared]).toBeUndefined()
    }
  })
})

describe("README examples", () => {
  it("core: an account, a pet and a page, in memory", async () => {
    expect(await runExample("core")).toMatch(/^account acc_\w+ \(key psk_live_\w{4}…\): Rex\n$/)
  })

  it("http-node: a node:http server answers GET /v1/pets", async () => {
    expect(await runExample("http-node")).toMatch(/^200 59 \[\]\n$/)
  })

  it("sqlite: a pet written, the file closed, the pet read back", async () => {
    expect(await runExample("sqlite")).toMatch(/^pet 1: Rex, kept in /)
  })

  it("server: started from code, its document fetched, stopped", async () => {
    expect(await runExample("server")).toMatch(/^Pet Store Service \d+\.\d+\.\d+ on http:\/\/127\.0\.0\.1:\d+\n$/)
  })

  it("testkit: arbitraries in a plain script", async () => {
    expect(await runExample("testkit")).toMatch(/categoryId/)
  })
})
