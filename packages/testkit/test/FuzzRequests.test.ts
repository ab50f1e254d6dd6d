/**
 * Which targets the fuzzer's oracle takes as requests of the public API (answered with the
 * rate-limit headers): every path but the open ones (docs/api.md) and the admin API.
 */
import { describe, expect, it } from "vitest"
import { isOpenTarget, isPublicApiTarget } from "../src/fuzz/Requests.js"

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

// Where a request with a valid key is held to the rate-limit headers whatever the target's shape:
// every path the server routes to the public API, as it routes it (an absolute URL by its path).
describe("isOpenTarget", () => {
  it.each([
    ["GET", "/healthz", true],
    ["POST", "/readyz", true],
    ["GET", "/v1/openapi.json", true],
    ["POST", "/v1/openapi.json", false],
    ["GET", "/docs?asset=x.js", true],
    ["GET", "/metrics", true],
    ["GET", "/admin/v1/accounts", true],
    ["GET", "http://x/healthz", true],
    ["GET", "http://x/v1/../healthz", true],
    ["GET", "/v1/../healthz", false],
    ["OPTIONS", "*", false],
    ["GET", "*", false],
    ["GET", "/V1/OPENAPI.JSON", false],
    ["GET", "/v1/pets", false]
  ])("%s %s: %s", (method, target, expected) => {
    expect(isOpenTarget(method, target)).toBe(expected)
  })
})
