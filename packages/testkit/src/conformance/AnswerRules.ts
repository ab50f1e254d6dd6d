/**
 * Values of answers that the interface and the product decisions fix exactly, beyond what the
 * document's schemas say: the Error `code` of each kind of refusal, the code each class of invalid
 * input gets, and the form of timestamps (RFC 3339 in UTC).
 */
import type { HttpExchange } from "./HttpExchange.js"
import { fail } from "./Violation.js"

/** The codes each status may carry on the public API (the model picks among 429's three). @category constants */
export const CODES_BY_STATUS: Readonly<Record<number, ReadonlyArray<string>>> = {
  400: ["invalid_request", "invalid_json", "unsupported_media_type", "invalid_cursor"],
  401: ["unauthorized"],
  404: ["not_found"],
  405: ["method_not_allowed"],
  410: ["gone"],
  413: ["payload_too_large"],
  429: ["rate_limited", "daily_quota_exceeded", "key_banned"],
  503: ["unavailable"]
}

/** The code for a class of invalid input (the `defect` of the testkit's arbitraries). @category constants */
export const codesForDefect = (defect: string): ReadonlyArray<string> => {
  switch (defect) {
    case "malformed_json":
      return ["invalid_json"]
    case "wrong_content_type":
    case "missing_content_type":
      return ["unsupported_media_type"]
    case "oversize_body":
      return ["payload_too_large"]
    case "forged_cursor":
      // The product decisions fix the status (400), not which of these two codes.
      return ["invalid_cursor", "invalid_request"]
    default:
      return ["invalid_request"]
  }
}

/** The Error body's code, when there is one. */
export const errorCode = (x: HttpExchange): string | undefined => {
  try {
    const body = JSON.parse(x.response.text) as { code?: unknown }
    return typeof body?.code === "string" ? body.code : undefined
  } catch {
    return undefined
  }
}

/** The problem with the code of an error answer of the public API, if any. @category checks */
export const codeProblem = (x: HttpExchange): string | undefined => {
  const status = x.response.status
  const allowed = CODES_BY_STATUS[status]
  if (allowed === undefined) return undefined
  const code = errorCode(x)
  if (code === undefined || allowed.includes(code)) return undefined
  return `${x.request.method} ${x.request.path} → ${status}: code ${JSON.stringify(code)}; a ${status} carries ${allowed.join(" or ")}`
}

/** Fails unless the answer's code is one of `codes`. @category checks */
export const expectCode = (what: string, x: HttpExchange, codes: ReadonlyArray<string>): void => {
  const code = errorCode(x)
  if (code === undefined || !codes.includes(code)) fail(`${what}: code ${JSON.stringify(code)}, expected ${codes.join(" or ")}`)
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/

/** Fails unless the value is an RFC 3339 timestamp in UTC (`2026-01-01T12:00:00.000Z`). @category checks */
export const expectUtcTimestamp = (what: string, field: string, value: unknown): void => {
  if (typeof value !== "string" || !RFC3339_UTC.test(value) || Number.isNaN(Date.parse(value))) {
    fail(`${what}: ${field} ${JSON.stringify(value)} is not an RFC 3339 timestamp in UTC (e.g. 2026-01-01T12:00:00.000Z)`)
  }
}
