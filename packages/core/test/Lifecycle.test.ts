import { describe, expect, it } from "@effect/vitest"
import * as Lifecycle from "../src/Lifecycle.js"

describe("Lifecycle", () => {
  it("getPet was deprecated on 2026-01-01 and is removed on 2030-12-05, 00:00 UTC", () => {
    expect(new Date(Lifecycle.GET_PET_DEPRECATED_AT).toISOString()).toBe("2026-01-01T00:00:00.000Z")
    expect(new Date(Lifecycle.GET_PET_SUNSET_AT).toISOString()).toBe("2030-12-05T00:00:00.000Z")
  })

  it("isGetPetSunset: false until the sunset instant, true from it on", () => {
    expect(Lifecycle.isGetPetSunset(Lifecycle.GET_PET_SUNSET_AT - 1)).toBe(false)
    expect(Lifecycle.isGetPetSunset(Lifecycle.GET_PET_SUNSET_AT)).toBe(true)
    expect(Lifecycle.isGetPetSunset(Lifecycle.GET_PET_SUNSET_AT + 1)).toBe(true)
  })
})
