/**
 * A deprecated operation's lifecycle as the answers and the document write it (`GET /pets/{petId}`'s
 * declaration): the day for people is the one `Intl` (ICU, in English) writes, from a table of its
 * own (ICU is not started for it).
 */
import { describe, expect, it } from "@effect/vitest"
import { LIFECYCLE } from "../../src/internal/operations/getPet.js"
import * as Lifecycle from "../../src/internal/operations/lifecycle.js"

describe("Lifecycle", () => {
  it("getPet was deprecated on 2026-01-01 and is removed from 2030-12-05T00:00:00Z on", () => {
    expect(new Date(LIFECYCLE.deprecatedAt).toISOString()).toBe("2026-01-01T00:00:00.000Z")
    expect(new Date(LIFECYCLE.sunsetAt).toISOString()).toBe("2030-12-05T00:00:00.000Z")
  })

  it("is past its sunset from the sunset's instant on", () => {
    expect(Lifecycle.isSunset(LIFECYCLE, LIFECYCLE.sunsetAt - 1)).toBe(false)
    expect(Lifecycle.isSunset(LIFECYCLE, LIFECYCLE.sunsetAt)).toBe(true)
    expect(Lifecycle.isSunset(LIFECYCLE, LIFECYCLE.sunsetAt + 1)).toBe(true)
  })

  it("writes the sunset's day as Intl's English does, and the HTTP dates as RFC 8594 and RFC 9745 say", () => {
    const sunset = new Date(LIFECYCLE.sunsetAt)
    const intl = new Intl.DateTimeFormat("en", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" }).formatToParts(sunset)
    const part = (type: string) => intl.find((p) => p.type === type)!.value
    expect(Lifecycle.sunsetDay(LIFECYCLE)).toBe(`${part("day")} ${part("month")} ${part("year")}`)
    expect(Lifecycle.sunsetValue(LIFECYCLE)).toBe(sunset.toUTCString())
    expect(Lifecycle.deprecationValue(LIFECYCLE)).toBe(`@${Math.floor(LIFECYCLE.deprecatedAt / 1000)}`)
  })

  it("names every month as Intl's English does", () => {
    const names = Array.from({ length: 12 }, (_, month) => new Date(Date.UTC(2030, month, 5)).toLocaleString("en", { month: "long", timeZone: "UTC" }))
    expect(Lifecycle.MONTHS).toEqual(names)
  })

  it("links to the successor and the notice under the mount path", () => {
    expect(Lifecycle.headers(LIFECYCLE, "/petstore").Link).toBe(
      "</petstore/v1/pets>; rel=\"successor-version\", </petstore/docs>; rel=\"deprecation\"; type=\"text/html\""
    )
  })
})
