/**
 * The oracle: judges every answer of a connection against docs/api.md and RFC 9112, and the
 * connection as a whole (every owed answer came, in order, without a reset or a hang).
 *
 * - no status ≥ 500;
 * - every 4xx/5xx has `Content-Type: application/json` and a body that is exactly
 *   `{code: string, message: string, status: number}` with `status` the HTTP status;
 * - every answer carries `X-Request-Id`;
 * - every answer of the public API carries `X-RateLimit-Limit`, `-Remaining`, `-Reset`,
 *   `RateLimit-Policy` and `RateLimit`; every 429 carries `Retry-After` (whole seconds ≥ 1);
 * - every answer to a request with a valid key (to a path that is not open) carries them too,
 *   unless it is a refusal docs/api.md lists as coming before authentication;
 * - a broken request gets a 4xx; others get a status docs/api.md allows, where it fixes one;
 * - every request before the one that ends the connection is answered (see `Due`), and the
 *   server closes the connection where it must.
 */
import * as Due from "./Due.js"
import type { Outcome } from "./RawClient.js"
import type { ConnectionScript, RawRequest } from "./RawRequest.js"
import type { Answer } from "./ResponseReader.js"

/** @category models */
export type FailureKind =
  | "server-error"
  | "error-not-json"
  | "error-body"
  | "rate-limit-headers"
  | "request-id"
  | "unexpected-status"
  | "lost-answer"
  | "reset"
  | "hang"
  | "not-closed"
  | "malformed-response"
  | "unsolicited-answer"
  | "no-connection"

/** What each kind means, for reports. @category models */
export const FAILURE_KINDS: Readonly<Record<FailureKind, string>> = {
  "server-error": "an answer with status ≥ 500",
  "error-not-json": "an error answer without Content-Type: application/json",
  "error-body": "an error answer whose body is not exactly {code, message, status} with the HTTP status",
  "rate-limit-headers":
    "an answer of the public API, or to a request with a valid key, without the rate-limit headers and not a refusal before authentication (or a 429 without Retry-After)",
  "request-id": "an answer without X-Request-Id",
  "unexpected-status": "a status docs/api.md does not allow for the request (a broken request not refused with a 4xx)",
  "lost-answer": "the server closed the connection before answering a request it owed an answer",
  "reset": "the connection was reset (or the pipe broke) before an owed answer",
  "hang": "no owed answer within the deadline",
  "not-closed": "the connection stayed open after an answer or request that closes it",
  "malformed-response": "bytes that are not an HTTP/1.1 answer, or an answer cut short by the close",
  "unsolicited-answer": "more answers than the requests were owed",
  "no-connection": "the server did not accept the connection"
}

/** @category models */
export interface Failure {
  readonly kind: FailureKind
  /** The request (0-based) it concerns, if one. */
  readonly request: number | undefined
  readonly message: string
}

const RATE_LIMIT_COUNTS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]
const RATE_LIMIT_FIELDS = ["ratelimit-policy", "ratelimit"]
const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

const mediaType = (value: string | undefined): string | undefined => value?.split(";")[0]!.trim().toLowerCase()

/** Why `body` is not an Error body for `status`, or `undefined` when it is one. */
const errorBodyProblem = (body: Buffer, status: number): string | undefined => {
  let value: unknown
  try {
    value = JSON.parse(strictUtf8.decode(body))
  } catch {
    return `the body is not JSON: ${JSON.stringify(body.subarray(0, 80).toString("latin1"))}`
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `the body is not an object: ${JSON.stringify(value)}`
  const keys = Object.keys(value).sort().join(",")
  const error = value as Record<string, unknown>
  if (keys !== "code,message,status") return `the body's fields are ${keys || "none"}, not code, message, status`
  if (typeof error.code !== "string" || typeof error.message !== "string" || typeof error.status !== "number") {
    return `the body's fields have the wrong types: ${JSON.stringify(value).slice(0, 120)}`
  }
  if (error.status !== status) return `the body says status ${error.status} for an HTTP ${status}`
  return undefined
}

/**
 * The refusals docs/api.md lists as coming before authentication, each an Error answer that closes
 * the connection: a request that is not valid HTTP/1.1 or lacks `Host` (400 `invalid_request`), an
 * `Expect` other than `100-continue` (417), `CONNECT` (405), headers over 16 KiB (431), a request
 * not received in time (408), a connection past the server's cap (503 `unavailable`). The code is
 * read from the body when there is one (not for HEAD).
 *
 * @category judging
 */
export const REFUSALS_BEFORE_AUTHENTICATION: ReadonlyArray<{ readonly status: number; readonly code: string; readonly method?: string }> = [
  { status: 400, code: "invalid_request" },
  { status: 405, code: "method_not_allowed", method: "CONNECT" },
  { status: 408, code: "request_timeout" },
  { status: 417, code: "expectation_failed" },
  { status: 431, code: "headers_too_large" },
  { status: 503, code: "unavailable" }
]

const codeOf = (body: Buffer): string | undefined => {
  try {
    const code = (JSON.parse(body.toString("utf8")) as { readonly code?: unknown }).code
    return typeof code === "string" ? code : undefined
  } catch {
    return undefined
  }
}

/** Whether `answer` to `request` is one of `REFUSALS_BEFORE_AUTHENTICATION`. @category judging */
export const isRefusalBeforeAuthentication = (request: RawRequest, answer: Answer): boolean =>
  answer.closes && REFUSALS_BEFORE_AUTHENTICATION.some((r) =>
    r.status === answer.status && (r.method === undefined || r.method === request.method) &&
    (request.method === "HEAD" || codeOf(answer.body) === r.code)
  )

/** The failures of one answer to its request. @category judging */
export const judgeAnswer = (request: RawRequest, answer: Answer): ReadonlyArray<{ readonly kind: FailureKind; readonly detail: string }> => {
  const out: Array<{ kind: FailureKind; detail: string }> = []
  const status = answer.status
  if (status >= 500) out.push({ kind: "server-error", detail: `${status} ${answer.body.subarray(0, 200).toString("utf8")}` })
  if (status >= 400) {
    const type = answer.headers["content-type"]
    if (mediaType(type) !== "application/json") out.push({ kind: "error-not-json", detail: `${status} with Content-Type ${type ?? "(none)"}` })
    if (request.method !== "HEAD") {
      const problem = errorBodyProblem(answer.body, status)
      if (problem !== undefined) out.push({ kind: "error-body", detail: `${status}: ${problem}` })
    }
  }
  if (request.rateLimited) {
    const missing = [
      ...RATE_LIMIT_COUNTS.filter((h) => !/^\d+$/.test(answer.headers[h] ?? "")),
      ...RATE_LIMIT_FIELDS.filter((h) => (answer.headers[h] ?? "") === "")
    ]
    if (missing.length > 0) out.push({ kind: "rate-limit-headers", detail: `${status} without (a valid) ${missing.join(", ")}` })
  }
  if (request.keyed && !request.rateLimited && !isRefusalBeforeAuthentication(request, answer)) {
    const missing = [...RATE_LIMIT_COUNTS, ...RATE_LIMIT_FIELDS].filter((h) => (answer.headers[h] ?? "") === "")
    if (missing.length > 0) {
      out.push({
        kind: "rate-limit-headers",
        detail: `${status} to a request with a valid key without ${missing.join(", ")}, and not a refusal before authentication (docs/api.md)`
      })
    }
  }
  if ((answer.headers["x-request-id"] ?? "") === "") out.push({ kind: "request-id", detail: `${status} without X-Request-Id` })
  if (status === 429 && !/^[1-9]\d*$/.test(answer.headers["retry-after"] ?? "")) {
    out.push({ kind: "rate-limit-headers", detail: `429 with Retry-After ${JSON.stringify(answer.headers["retry-after"] ?? null)}` })
  }
  if (request.framing === "broken" && (status < 400 || status >= 500)) {
    out.push({ kind: "unexpected-status", detail: `${status} to a request whose framing is broken (a 4xx is due)` })
  } else if (request.framing !== "broken" && request.statuses !== undefined && !request.statuses.includes(status)) {
    out.push({ kind: "unexpected-status", detail: `${status}, expected ${request.statuses.join(" or ")}` })
  }
  return out
}

const describe = (script: ConnectionScript, index: number): string => {
  const r = script.requests[index]!
  return `request ${index + 1} of ${script.requests.length} (${r.kind}: ${r.note})`
}

/**
 * Whether `answer`, given to request `index`, looks like the connection's error answer to a later
 * request (broken, doubtful, or sent after a close) that went out before the answers owed ahead
 * of it: an error that closes the connection and that its own request cannot get (a status it does
 * not allow, or no rate-limit headers where they are due). Returns the later request's index.
 */
const overtakingErrorAnswer = (
  requests: ReadonlyArray<RawRequest>,
  index: number,
  answer: Answer
): { readonly later: number; readonly why: string } | undefined => {
  const request = requests[index]!
  if (request.framing !== "valid" || !answer.closes || answer.status < 400) return undefined
  const noRateLimit = request.rateLimited && [...RATE_LIMIT_COUNTS, ...RATE_LIMIT_FIELDS].every((h) => answer.headers[h] === undefined)
  const notAllowed = request.statuses !== undefined && !request.statuses.includes(answer.status)
  if (!noRateLimit && !notAllowed) return undefined
  const later = requests.findIndex((r, j) => j > index && (r.framing !== "valid" || requests[j - 1]!.asksClose))
  if (later === -1) return undefined
  return { later, why: notAllowed ? `a status it cannot get (${request.statuses!.join(" or ")} are due)` : "no rate-limit headers" }
}

/**
 * Answers beyond those owed. A client that sent requests after its own `Connection: close` may get
 * one error answer for them before the close (judged like the answer to a broken request); requests
 * pipelined behind an `Upgrade` request the server did not take may be answered as usual (each
 * judged with its request). Any other answer is unsolicited.
 */
const leftOver = (script: ConnectionScript, outcome: Outcome, due: number): ReadonlyArray<Failure> => {
  const closer = script.requests[due - 1]
  return outcome.answers.slice(due).flatMap((answer, k): ReadonlyArray<Failure> => {
    const index = due + k
    const request = script.requests[index]
    const judged = request === undefined || closer === undefined
      ? undefined
      : closer.switches && answer.status !== 101
      ? judgeAnswer(request, answer)
      : closer.asksClose && k === 0
      ? judgeAnswer({ ...request, framing: "broken", rateLimited: false, keyed: false }, answer)
      : undefined
    if (judged === undefined) {
      return [{ kind: "unsolicited-answer", request: undefined, message: `answer ${index + 1} (${answer.status}) after the connection owed only ${due}` }]
    }
    return judged.map(({ detail, kind }) => ({ kind, request: index, message: `${describe(script, index)}, answered though not owed: ${detail}` }))
  })
}

/** The failures of a connection: each answer, then what is missing or left over. @category judging */
export const judge = (script: ConnectionScript, outcome: Outcome): ReadonlyArray<Failure> => {
  const requests = script.requests
  const failures: Array<Failure> = []
  const due = Due.answersDue(script, outcome.answers)
  outcome.answers.slice(0, due).forEach((answer, i) => {
    const overtaking = overtakingErrorAnswer(requests, i, answer)
    if (overtaking !== undefined) {
      const later = requests[overtaking.later]!
      failures.push({
        kind: "lost-answer",
        request: i,
        message: `${describe(script, i)} got ${answer.status} with Connection: close and ${overtaking.why}: the error answer of ` +
          `request ${overtaking.later + 1} (${later.kind}: ${later.note}) went out first, and the answers owed before it were lost`
      })
      return
    }
    for (const { detail, kind } of judgeAnswer(requests[i]!, answer)) failures.push({ kind, request: i, message: `${describe(script, i)}: ${detail}` })
  })
  failures.push(...leftOver(script, outcome, due))
  if (outcome.end === "protocol") {
    const last = outcome.answers.length - 1
    const hint = last >= 0 && requests[last]!.method === "HEAD" && outcome.answers[last]!.closes
      ? ` (the answer read as request ${last + 1}'s to HEAD closed the connection: if it was an answer to a later request, its body was read as the next answer)`
      : ""
    failures.push({ kind: "malformed-response", request: outcome.answers.length, message: `after ${outcome.answers.length} answers: ${outcome.protocolError}${hint}` })
  } else if (outcome.answers.length < due) {
    const missing = due - outcome.answers.length
    const first = outcome.answers.length
    const how = outcome.end === "reset"
      ? { kind: "reset" as const, text: `the connection was reset (${outcome.socketError})` }
      : outcome.end === "deadline"
      ? { kind: "hang" as const, text: "nothing came within the deadline" }
      : outcome.end === "refused"
      ? { kind: "no-connection" as const, text: `the connection failed (${outcome.socketError})` }
      : outcome.protocolError !== undefined
      ? { kind: "malformed-response" as const, text: outcome.protocolError }
      : { kind: "lost-answer" as const, text: "the server closed the connection" }
    failures.push({
      kind: how.kind,
      request: first,
      message: `${describe(script, first)} and ${missing - 1} more owed an answer after ${first} answer(s): ${how.text}`
    })
  } else if (outcome.end === "deadline" && Due.closeDue(script, outcome.answers)) {
    failures.push({ kind: "not-closed", request: due - 1, message: `${describe(script, due - 1)} was answered, but the connection stayed open` })
  }
  return failures
}
