/**
 * Where a request came from, as the console's session and the admin API's cookie need it: the
 * scheme it was sent with (`https` when a trusted proxy says so in `X-Forwarded-Proto`; this server
 * itself speaks HTTP), the server's own origin as the request addressed it (scheme and `Host`), and
 * whether the browser says the request comes from a page of that origin.
 *
 * The rule: a request whose `Origin` is another origin is cross-origin; a request whose
 * `Sec-Fetch-Site` is other than `same-origin` (or `none`, typed by the user) is cross-origin; a
 * write (any method but GET and HEAD) without `Origin` is refused too, as browsers always send it on
 * writes. A read without `Origin` is same-origin (browsers omit it on same-origin reads), still
 * only with the CSRF token where one is asked.
 */
import type { AppRequest } from "../../AppRequest.js"

/** Whether the request reached the server over HTTPS, as the trusted proxies say (0 proxies: never). */
export const isHttps = (request: AppRequest, trustProxy: number): boolean => {
  if (trustProxy === 0) return false
  const header = request.header("x-forwarded-proto")
  if (header === undefined) return false
  const hops = header.split(",").map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0)
  if (hops.length === 0) return false
  // The entry the outermost trusted proxy wrote (proxies that overwrite the header leave one).
  const hop = hops.length >= trustProxy ? hops[hops.length - trustProxy]! : hops[0]!
  return hop === "https"
}

/** The server's own origin as the request addressed it: `http(s)://<Host>`, or `undefined` without `Host`. */
export const ownOrigin = (request: AppRequest, trustProxy: number): string | undefined => {
  const host = request.header("host")
  if (host === undefined || host === "") return undefined
  return `${isHttps(request, trustProxy) ? "https" : "http"}://${host.toLowerCase()}`
}

const isRead = (method: string): boolean => method === "GET" || method === "HEAD"

/** Whether the browser says the request comes from a page of another origin (`Sec-Fetch-Site`, `Origin`). */
export const isCrossOrigin = (request: AppRequest, trustProxy: number): boolean => {
  const site = request.header("sec-fetch-site")
  if (site !== undefined && site !== "same-origin" && site !== "none") return true
  const origin = request.header("origin")
  if (origin === undefined) return false
  const own = ownOrigin(request, trustProxy)
  return own === undefined || origin.toLowerCase() !== own
}

/** Whether the request comes from a page of the server's own origin (see the rule above). */
export const isSameOrigin = (request: AppRequest, trustProxy: number): boolean =>
  !isCrossOrigin(request, trustProxy) && (request.header("origin") !== undefined || isRead(request.method))
