/**
 * Where a host mounted the application: the URL the application routes on, and the paths it owns.
 */
import { describe, expect, it } from "vitest"
import * as Mount from "../src/internal/hosts/mount.js"

describe("Mount.routedUrl", () => {
  it.each([
    ["/v1/pets?limit=2", "", "/v1/pets?limit=2"],
    ["/petstore/v1/pets?limit=2", "/petstore", "/v1/pets?limit=2"],
    ["/petstore", "/petstore", "/"],
    ["/petstore?x=1", "/petstore", "/?x=1"],
    ["/petstorex/v1/pets", "/petstore", undefined],
    ["/v1/pets", "/petstore", undefined],
    ["http://host.test/petstore/v1/pets?x=1", "/petstore", "/v1/pets?x=1"],
    ["http://host.test/v1/pets", "", "/v1/pets"],
    // At the root, the asterisk form and other targets that are no URL are the application's as they are.
    ["*", "", "*"],
    ["not-a-url", "", "not-a-url"],
    ["*", "/petstore", undefined]
  ])("%s under %j is %j", (url, basePath, routed) => {
    expect(Mount.routedUrl(url, basePath)).toBe(routed)
  })
})

describe("Mount.normalizeBasePath", () => {
  it("keeps a path without its trailing slash, the root as no prefix, and refuses anything but a path", () => {
    expect(Mount.normalizeBasePath("/petstore/")).toBe("/petstore")
    expect(Mount.normalizeBasePath("/")).toBe("")
    expect(Mount.normalizeBasePath(undefined)).toBe("")
    expect(() => Mount.normalizeBasePath("petstore")).toThrow(/basePath/)
    expect(() => Mount.normalizeBasePath("/petstore?x")).toThrow(/basePath/)
  })
})

describe("Mount.owns", () => {
  it("matches exact paths and prefixes, whatever the query", () => {
    const paths = ["/docs", "/v1/"]
    expect(Mount.owns(paths, "/docs?x=1")).toBe(true)
    expect(Mount.owns(paths, "/v1/pets")).toBe(true)
    expect(Mount.owns(paths, "/docs/x")).toBe(false)
    expect(Mount.owns(paths, "/v1")).toBe(false)
    expect(Mount.owns(paths, "/health")).toBe(false)
  })
})
