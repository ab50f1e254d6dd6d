/**
 * docs/security.md says where each promise is tested: every test file it names exists, so the page
 * cannot point at tests that were renamed or removed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const page = Fs.readFileSync(`${ROOT}docs/security.md`, "utf8")

describe("docs/security.md", () => {
  const named = [...new Set([...page.matchAll(/`(packages\/[\w/.-]+\.test\.ts)`/g)].map(([, path]) => path!))]

  it("names the test files of each promise", () => expect(named.length).toBeGreaterThan(10))

  it.each(named)("%s exists", (path) => expect(Fs.existsSync(`${ROOT}${path}`)).toBe(true))
})
