/**
 * The sunset of `GET /pets/{petId}` as the answers and the document write it: the day for people is
 * the one `Intl` (ICU, in English) writes, from a table of its own (ICU is not started for it).
 */
import { describe, expect, it } from "@effect/vitest"
import { Lifecycle } from "@petstore/core"
import { DEPRECATION, MONTHS, SUNSET, SUNSET_DAY } from "../../src/internal/getPetLifecycle.js"

describe("GET /pets/{petId}'s lifecycle values", () => {
  it("write the sunset's day as Intl's English does, and the HTTP dates as RFC 8594 and RFC 9745 say", () => {
    const sunset = new Date(Lifecycle.GET_PET_SUNSET_AT)
    const intl = new Intl.DateTimeFormat("en", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" }).formatToParts(sunset)
    const part = (type: string) => intl.find((p) => p.type === type)!.value
    expect(SUNSET_DAY).toBe(`${part("day")} ${part("month")} ${part("year")}`)
    expect(SUNSET).toBe(sunset.toUTCString())
    expect(DEPRECATION).toBe(`@${Math.floor(Lifecycle.GET_PET_DEPRECATED_AT / 1000)}`)
  })

  it("names every month as Intl's English does", () => {
    const names = Array.from({ length: 12 }, (_, month) => new Date(Date.UTC(2030, month, 5)).toLocaleString("en", { month: "long", timeZone: "UTC" }))
    expect(MONTHS).toEqual(names)
  })
})
