/**
 * Which targets the fuzzer's oracle takes as requests of the public API (answered with the
 * rate-limit headers): every path but the open ones (docs/api.md) and the admin API.
 */
import { describe, expect, it } from "vitest"
import { isPublicApiTarget } from "../src/fuzz/Requests.js"

describe("isPublicApiTarget", () => {
  it.each([
    ["GET", "/v1/openapi.json", false],
    ["HEAD", "/docs", false],
    ["GET", "/docs?asset=scalar-0.97.2.js", false],
    ["GET", "/favicon.ico", false],
    ["POST", "/favicon.ico", true],
    ["GET", "/favicon.ico/x", true],
    ["GET", "/v1/pets", true],
    ["GET", "/admin/v1/accounts", false]
  ])("%s %s: %s", (method, target, expected) => {
    expect(isPublicApiTarget(method, target)).toBe(expected)
  })
})
