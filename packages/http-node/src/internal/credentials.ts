/**
 * What a request says about who sends it: the bearer token of its `Authorization` header and the
 * client's address (the socket peer, or the hop `X-Forwarded-For` names behind trusted proxies).
 */
import { isIP } from "node:net"
import type { AppRequest } from "../AppRequest.js"
import { TOKEN68 } from "../BearerToken.js"
import { DEFAULT_IPV6_SUBNET, group } from "./addressGroup.js"

const BEARER = new RegExp(`^bearer (${TOKEN68})$`, "i")

/** The token of a well-formed `Bearer` Authorization header: scheme (any case), one space, a token. */
export const bearerToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = BEARER.exec(header)
  return match === null ? undefined : match[1]
}

/**
 * The client's address, given how many proxies in front of the server append to
 * `X-Forwarded-For` (0: the socket peer, whatever the header says). The entry the last trusted
 * proxy wrote is the N-th from the right; with fewer entries, or when that entry is not an IP
 * address, the header was not written by the trusted proxies alone, so the socket peer is used: a
 * client never picks its own address (the leftmost entries are its own words) nor names a bucket
 * with arbitrary text. IPv6 addresses are grouped by their first `ipv6Subnet` bits (see
 * `addressGroup`), as the limits apply to a client, not to one of its many addresses.
 */
export const clientAddress = (trustProxy: number, ipv6Subnet: number = DEFAULT_IPV6_SUBNET) => (request: AppRequest): string =>
  group(forwardedOrPeer(trustProxy, request), ipv6Subnet)

/**
 * The client's address as `clientAddress` finds it, not grouped: what the access log names.
 */
export const clientHost = (trustProxy: number) => (request: AppRequest): string => forwardedOrPeer(trustProxy, request)

const forwardedOrPeer = (trustProxy: number, request: AppRequest): string => {
  const peer = request.remoteAddress ?? "unknown"
  if (trustProxy === 0) return peer
  const forwarded = request.header("x-forwarded-for")
  if (forwarded === undefined) return peer
  // Empty list elements do not count (RFC 9110 §5.6.1).
  const hops = forwarded.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
  if (hops.length < trustProxy) return peer
  const hop = hops[hops.length - trustProxy]!
  return isIP(hop) === 0 ? peer : hop
}
