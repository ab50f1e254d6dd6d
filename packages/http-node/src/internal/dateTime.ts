/**
 * Date-times as the API takes them: ISO 8601 with an offset, checked to name a real instant.
 */
import * as Schema from "effect/Schema"

// The `u` flag lets Schema write the pattern into JSON Schema (and so the OpenAPI document); it
// matches the same strings (the pattern is ASCII only).
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/u

/** Days in `month` (1..12) of `year`, in the proleptic Gregorian calendar of ISO 8601 (year 0 is a leap year). */
const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/** Whether the fields name a real instant: `Date.parse` would roll 30 February over to March. */
const isRealDateTime = (s: string): boolean => {
  const [, year, month, day, hour, minute, second = "0", offsetHours = "0", offsetMinutes = "0"] = ISO_8601.exec(s) ?? []
  const m = Number(month)
  return m >= 1 && m <= 12 && Number(day) >= 1 && Number(day) <= daysIn(Number(year), m) &&
    Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59 && Number(offsetHours) <= 23 &&
    Number(offsetMinutes) <= 59
}

/**
 * An ISO-8601 date-time with its offset, naming a real instant. In JSON Schema it is the pattern
 * with the description the document has always given it (the last check, which JSON Schema cannot
 * express, carries no description of its own into the document).
 */
export const Iso8601 = Schema.String.check(
  Schema.isPattern(ISO_8601, {
    message: "must be an ISO-8601 date-time such as 2030-01-31T12:00:00Z",
    description: `a string matching the pattern ${ISO_8601.source}`
  }),
  Schema.makeFilter((s: string) => isRealDateTime(s) || "must be a real date and time (no 30 February, no 24:00)")
)
