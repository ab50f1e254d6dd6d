/**
 * Where a request came from, as the console's session and the admin API's cookie need it: the
 * scheme it was sent with (`https` when a trusted proxy says so in `X-Forwarded-Proto`; this server
 * itself speaks HTTP), and whether the browser says the request comes from a page of the server's
 * own origin.
 *
 * The rule (OWASP's Fetch Metadata guidance, with `Origin` as the fallback):
 * - a request with `Sec-Fetch-Site` is judged by it alone, as browsers set it and no page can:
 *   `same-origin` is same-origin; `none` (typed by the user) is same-origin for a read only;
 *   `same-site`, `cross-site` and anything else are cross-origin;
 * - without it, a request whose `Origin` is not the server's own is cross-origin. The server's own
 *   origin is the scheme and `Host` the request addressed; when the scheme cannot be known (no
 *   trusted proxy, so a TLS-terminating proxy in front goes unseen) only host and port are compared;
 * - a write (any method but GET and HEAD) with neither header is refused, as browsers always send
 *   one on writes; a read with neither is same-origin (browsers omit `Origin` on same-origin reads),
 *   still only with the CSRF token where one is asked.
 */
import type { AppRequest } from "../../AppRequest.js"

/** Whether the request reached the server over HTTPS, as the trusted proxies say (0 proxies: never). */
export const isHttps = (request: AppRequest, trustProxy: number): boolean => {
  if (trustProxy === 0) return false
  const header = request.header("x-forwarded-proto")
  if (header === undefined) return false
  const hops = header.split(",").map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0)
  // As `X-Forwarded-For` is read: fewer entries than trusted proxies, and the entry the outermost
  // trusted proxy should have written is missing (what there is may be the client's own).
  if (hops.length < trustProxy) return false
  return hops[hops.length - trustProxy] === "https"
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" }

/** Whether `origin` (an `Origin` header) is the server's own as the request addressed it (see the rule above). */
const isOwnOrigin = (request: AppRequest, trustProxy: number, origin: string): boolean => {
  const host = request.header("host")
  if (host === undefined || host === "") return false
  if (trustProxy > 0) return origin.toLowerCase() === `${isHttps(request, trustProxy) ? "https" : "http"}://${host.toLowerCase()}`
  let given: URL
  let own: URL
  try {
    given = new URL(origin)
    own = new URL(`http://${host}`)
  } catch {
    return false
  }
  if (!(given.protocol in DEFAULT_PORTS) || given.hostname !== own.hostname) return false
  // `Host` without a port, or with the default one of the scheme the browser used, is the origin's default port.
  const ownPort = own.port === "" || own.port === DEFAULT_PORTS[given.protocol] ? "" : own.port
  return given.port === ownPort
}

const isRead = (method: string): boolean => method === "GET" || method === "HEAD"

/** Whether the browser says the request comes from a page of another origin (`Sec-Fetch-Site`, else `Origin`). */
export const isCrossOrigin = (request: AppRequest, trustProxy: number): boolean => {
  const site = request.header("sec-fetch-site")
  if (site !== undefined) return !(site === "same-origin" || (site === "none" && isRead(request.method)))
  const origin = request.header("origin")
  return origin !== undefined && !isOwnOrigin(request, trustProxy, origin)
}

/** Whether the request comes from a page of the server's own origin (see the rule above). */
export const isSameOrigin = (request: AppRequest, trustProxy: number): boolean =>
  !isCrossOrigin(request, trustProxy) &&
  (request.header("sec-fetch-site") !== undefined || request.header("origin") !== undefined || isRead(request.method))
