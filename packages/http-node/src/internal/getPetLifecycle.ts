/**
 * The deprecation and sunset of `GET /pets/{petId}` (the core's `Lifecycle` dates) as the HTTP layer
 * writes them. The answers' headers, the OpenAPI document's examples and prose, and the 410 message
 * all quote these values.
 *
 * @internal
 */
import { Lifecycle } from "@petstore/core"

const sunset = new Date(Lifecycle.GET_PET_SUNSET_AT)

/** The `Deprecation` value (RFC 9745): a structured date, `@` and seconds since the epoch. */
export const DEPRECATION = `@${Math.floor(Lifecycle.GET_PET_DEPRECATED_AT / 1000)}`

/** The `Sunset` value (RFC 8594): an HTTP date, `Thu, 05 Dec 2030 00:00:00 GMT`. */
export const SUNSET = sunset.toUTCString()

/** English month names: `toLocaleString("en", { month: "long" })` would start ICU (about 35 ms and 7 MB at start-up). */
export const MONTHS: ReadonlyArray<string> = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

/** The sunset's day for people, `5 December 2030`. */
export const SUNSET_DAY = `${sunset.getUTCDate()} ${MONTHS[sunset.getUTCMonth()]} ${sunset.getUTCFullYear()}`
