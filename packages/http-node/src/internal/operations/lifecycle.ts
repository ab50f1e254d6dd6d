/**
 * An operation's deprecation, declared on its endpoint (the `Deprecated` annotation): when it was
 * deprecated, when it is removed (its sunset; from then on it answers `410 gone`), and what replaces
 * it. The answers' headers, the OpenAPI document (its examples and prose) and the 410 message are
 * all written from the declaration, so no other module names a deprecated operation.
 */
import * as Context from "effect/Context"
import { PUBLIC_PREFIX } from "./endpoint.js"

export interface Deprecation {
  /** When the operation was deprecated (epoch ms), for `Deprecation`. */
  readonly deprecatedAt: number
  /** From this instant on (epoch ms) the operation answers 410 `gone`. */
  readonly sunsetAt: number
  /** The operation that replaces it (a path under the public prefix), and how to use it for the same purpose. */
  readonly successor: { readonly method: string; readonly path: `/${string}`; readonly how: string }
}

/** The annotation of a deprecated endpoint. */
export class Deprecated extends Context.Service<Deprecated, Deprecation>()("@petstore/http-node/Deprecated") {}

/** Whether the operation is past its sunset at `now` (epoch ms, from the service's clock). */
export const isSunset = (deprecation: Deprecation, now: number): boolean => now >= deprecation.sunsetAt

/** The `Deprecation` value (RFC 9745): a structured date, `@` and seconds since the epoch. */
export const deprecationValue = (deprecation: Deprecation): string => `@${Math.floor(deprecation.deprecatedAt / 1000)}`

/** The `Sunset` value (RFC 8594): an HTTP date, `Thu, 05 Dec 2030 00:00:00 GMT`. */
export const sunsetValue = (deprecation: Deprecation): string => new Date(deprecation.sunsetAt).toUTCString()

/** English month names: `toLocaleString("en", { month: "long" })` would start ICU at start-up. */
export const MONTHS: ReadonlyArray<string> = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

/** The sunset's day for people, `5 December 2030`. */
export const sunsetDay = (deprecation: Deprecation): string => {
  const sunset = new Date(deprecation.sunsetAt)
  return `${sunset.getUTCDate()} ${MONTHS[sunset.getUTCMonth()]} ${sunset.getUTCFullYear()}`
}

/** The successor as the document writes it: `` `GET /v1/pets` with the `status` filter ``. */
export const successorText = ({ successor }: Deprecation): string => `\`${successor.method} ${PUBLIC_PREFIX}${successor.path}\` ${successor.how}`

/**
 * Headers of every answer of the operation: it is deprecated, with a sunset date and a replacement
 * (paths under `basePath`, where the application is mounted).
 */
export const headers = (
  deprecation: Deprecation,
  basePath: string
): { readonly Deprecation: string; readonly Sunset: string; readonly Link: string } => ({
  Deprecation: deprecationValue(deprecation),
  Sunset: sunsetValue(deprecation),
  Link: `<${basePath}${PUBLIC_PREFIX}${deprecation.successor.path}>; rel="successor-version", <${basePath}/docs>; rel="deprecation"; type="text/html"`
})
