/**
 * Building a fuzz request for the server under test: the usual headers (Host, the key, the body's
 * length) unless the shape being fuzzed replaces them, and what docs/api.md says about its answer.
 */
import { assemble, type Framing, type RawRequest } from "./RawRequest.js"

/** The server under test as the generators see it. @category models */
export interface FuzzTarget {
  /** The `Host` header value (`127.0.0.1:8080`). */
  readonly host: string
  /** A valid API key of an account of the fuzzer's own. */
  readonly key: string
  /** The public API's prefix (`/v1`). */
  readonly prefix: string
}

/** @category models */
export interface RequestSpec {
  readonly kind: string
  readonly note: string
  readonly method?: string
  readonly target: string
  readonly version?: string | null
  /** `key` (default): `Authorization: Bearer <key>`; `none`; or a whole header line. */
  readonly auth?: "key" | "none" | { readonly line: string }
  /** `true` (default) sends `Host`; `false` none; a string is a whole header line instead. */
  readonly host?: boolean | string
  readonly contentType?: string | undefined
  /** The body exactly as sent (after the head). */
  readonly body?: Uint8Array | string | undefined
  /** `Content-Length` of the body (default when there is a body); `false`: none; a string: that value. */
  readonly contentLength?: boolean | string
  /** More header lines, after the usual ones. */
  readonly headerLines?: ReadonlyArray<string>
  readonly lineEnd?: string
  readonly framing?: Framing
  readonly statuses?: ReadonlyArray<number> | undefined
  /** Whether the answer must carry the rate-limit headers; by default, when it is an API request. */
  readonly rateLimited?: boolean
  readonly asksClose?: boolean
  readonly incomplete?: boolean
  readonly switches?: boolean
  /** Header names in lower case (they are case-insensitive). */
  readonly lowerCaseNames?: boolean
}

const OPEN_PATHS = ["/v1/openapi.json", "/docs", "/favicon.ico"]
/** The health endpoints: no key and no rate limit, whatever the method (other methods get 405). */
const HEALTH_PATHS = ["/healthz", "/readyz"]

/**
 * Whether the server must take `target` as a request of the public API, which answers with the
 * rate-limit headers (every path but the open documents, the health endpoints and the admin API,
 * docs/api.md and docs/operations.md). Targets
 * a server could normalize onto those (dot segments, `//`, percent-encoding, case, fragments,
 * absolute or asterisk form) are left out.
 *
 * @category predicates
 */
export const isPublicApiTarget = (method: string, target: string): boolean => {
  if (!target.startsWith("/") || target.startsWith("//") || target.includes("#")) return false
  const q = target.indexOf("?")
  const path = q === -1 ? target : target.slice(0, q)
  if (/%|\/\/|\/\.\.?(\/|$)|[^\x21-\x7e]/.test(path)) return false
  const lower = path.toLowerCase()
  if (lower === "/admin" || lower.startsWith("/admin/")) return false
  if (OPEN_PATHS.includes(lower) && (method === "GET" || method === "HEAD")) return false
  if (HEALTH_PATHS.includes(path)) return false
  return true
}

/**
 * The path the server routes `target` on, as it does (docs/api.md): a path as sent, up to `?`; the
 * path of an absolute URL (parsed as a WHATWG URL); anything else (the asterisk form `*` ...) as it is.
 */
const routedPath = (target: string): string => {
  let url = target
  if (!target.startsWith("/")) {
    try {
      url = new URL(target).pathname
    } catch {
      return target
    }
  }
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/**
 * Whether `target` reaches a path that needs no API key and is not rate-limited: the health
 * endpoints, the open documents (GET and HEAD), `/metrics` (GET and HEAD, behind the admin token)
 * and the admin API. Every other path, whatever its shape, is the public API's.
 *
 * @category predicates
 */
export const isOpenTarget = (method: string, target: string): boolean => {
  const path = routedPath(target)
  if (HEALTH_PATHS.includes(path) || path === "/admin" || path.startsWith("/admin/")) return true
  return (method === "GET" || method === "HEAD") && (OPEN_PATHS.includes(path) || path === "/metrics")
}

const byteLength = (body: Uint8Array | string): number => typeof body === "string" ? Buffer.byteLength(body) : body.length

/** A request to the target from its spec. @category constructors */
export const build = (target: FuzzTarget, spec: RequestSpec): RawRequest => {
  const method = spec.method ?? "GET"
  const name = (n: string) => spec.lowerCaseNames === true ? n.toLowerCase() : n
  const lines: Array<string> = []
  const host = spec.host ?? true
  if (host === true) lines.push(`${name("Host")}: ${target.host}`)
  else if (typeof host === "string") lines.push(host)
  const auth = spec.auth ?? "key"
  if (auth === "key") lines.push(`${name("Authorization")}: Bearer ${target.key}`)
  else if (auth !== "none") lines.push(auth.line)
  if (spec.contentType !== undefined) lines.push(`${name("Content-Type")}: ${spec.contentType}`)
  const length = spec.contentLength ?? spec.body !== undefined
  if (length === true && spec.body !== undefined) lines.push(`${name("Content-Length")}: ${byteLength(spec.body)}`)
  else if (typeof length === "string") lines.push(`${name("Content-Length")}: ${length}`)
  lines.push(...(spec.headerLines ?? []))
  const framing = spec.framing ?? "valid"
  return {
    kind: spec.kind,
    note: spec.note,
    bytes: assemble({
      method,
      target: spec.target,
      ...(spec.version !== undefined ? { version: spec.version } : {}),
      headerLines: lines,
      body: spec.body,
      ...(spec.lineEnd !== undefined ? { lineEnd: spec.lineEnd } : {})
    }),
    method,
    framing,
    rateLimited: spec.rateLimited ?? (framing === "valid" && host !== false && isPublicApiTarget(method, spec.target)),
    keyed: auth === "key" && !isOpenTarget(method, spec.target),
    statuses: spec.statuses,
    asksClose: spec.asksClose ?? false,
    incomplete: spec.incomplete ?? false,
    switches: spec.switches ?? false
  }
}

/** Statuses of a request with the valid key: `ok` unless the account's limits refuse it first. @category constructors */
export const withKey = (...ok: ReadonlyArray<number>): ReadonlyArray<number> => [...ok, 429]
