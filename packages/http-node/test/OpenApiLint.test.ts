/**
 * The document passes Redocly's `recommended` and Spectral's `spectral:oas` rules with no error
 * and no warning, through the same script `.ci/run` runs (`pnpm lint:openapi`).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Api } from "../src/Api.js"
import * as OpenApiDocument from "../src/OpenApiDocument.js"

const root = resolve(import.meta.dirname, "../../..")

/** The document as the server serves it by default, with a staging URL. */
const doc = OpenApiDocument.make({
  api: Api,
  servers: [
    { url: "http://127.0.0.1:8080", description: "Production" },
    { url: "https://staging.petstore.test", description: "Staging" }
  ]
})

const lint = (document: unknown): Promise<{ readonly code: number; readonly output: string }> => {
  const dir = mkdtempSync(join(tmpdir(), "petstore-openapi-lint-"))
  const file = join(dir, "openapi.json")
  writeFileSync(file, JSON.stringify(document, null, 2))
  return new Promise<{ readonly code: number; readonly output: string }>((done) =>
    execFile(process.execPath, [join(root, "scripts/lint-openapi.mjs"), file], { cwd: root }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, output: stdout + stderr }))
  ).finally(() => rmSync(dir, { recursive: true, force: true }))
}

describe("OpenAPI lint (Redocly recommended, Spectral spectral:oas)", () => {
  it("reports no error and no warning on the document", async () => {
    const { code, output } = await lint(doc)
    expect(output).toContain("0 error(s) and warning(s)")
    expect(code, output).toBe(0)
  }, 60_000)

  it("fails on a warning: an operation without a description, a server on example.com", async () => {
    const listPets = doc.paths["/v1/pets"]!.get!
    const { description: _, ...undescribed } = listPets
    const { code, output } = await lint({
      ...doc,
      servers: [...doc.servers, { url: "https://api.example.com", description: "Example" }],
      paths: { ...doc.paths, "/v1/pets": { ...doc.paths["/v1/pets"], get: undescribed } }
    })
    expect(code).toBe(1)
    expect(output).toMatch(/spectral warning operation-description at #\/paths\/~1v1~1pets\/get/)
    expect(output).toMatch(/redocly warning no-server-example\.com at #\/servers\/2\/url/)
  }, 60_000)
})
