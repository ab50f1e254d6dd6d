/**
 * Where webhook deliveries may go: only public addresses, unless private ones are allowed
 * (`PETSTORE_WEBHOOK_ALLOW_PRIVATE`). The ranges are those Svix blocks: private, loopback, link-local,
 * shared (CGNAT), documentation, benchmarking, multicast, reserved, and their IPv6 counterparts;
 * the IPv6 forms that carry an IPv4 address (IPv4-compatible `::a.b.c.d`, IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`,
 * 6to4 `2002::/16`, Teredo `2001::/32`) are refused as a whole rather than decoded. Names that are
 * local by definition (`localhost` and `*.localhost`, RFC 6761; `*.local`, RFC 6762) are refused
 * with them.
 */
import * as net from "node:net"

// Two lists: one list would match IPv4 addresses against its IPv4-mapped IPv6 rule.
const BLOCKED_V4 = (() => {
  const list = new net.BlockList()
  for (
    const [address, prefix] of [
      ["0.0.0.0", 8],
      ["10.0.0.0", 8],
      ["100.64.0.0", 10],
      ["127.0.0.0", 8],
      ["169.254.0.0", 16],
      ["172.16.0.0", 12],
      ["192.0.0.0", 24],
      ["192.0.2.0", 24],
      ["192.88.99.0", 24],
      ["192.168.0.0", 16],
      ["198.18.0.0", 15],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
      ["224.0.0.0", 4],
      ["240.0.0.0", 4]
    ] as const
  ) list.addSubnet(address, prefix, "ipv4")
  return list
})()

const BLOCKED_V6 = (() => {
  const list = new net.BlockList()
  for (
    const [address, prefix] of [
      // IPv4-compatible (deprecated), with the unspecified and loopback addresses in it.
      ["::", 96],
      ["::ffff:0:0", 96],
      // IPv4-translated (RFC 2765).
      ["::ffff:0:0:0", 96],
      ["64:ff9b::", 96],
      ["64:ff9b:1::", 48],
      ["100::", 64],
      ["2001::", 23],
      ["2001:db8::", 32],
      ["2002::", 16],
      ["fc00::", 7],
      ["fe80::", 10],
      ["fec0::", 10],
      ["ff00::", 8]
    ] as const
  ) list.addSubnet(address, prefix, "ipv6")
  return list
})()

/** Whether `address` (an IP literal, IPv6 without brackets) is public: reachable on the internet at large. */
export const isPublicAddress = (address: string): boolean => {
  const family = net.isIP(address)
  if (family === 0) return false
  return family === 4 ? !BLOCKED_V4.check(address, "ipv4") : !BLOCKED_V6.check(address, "ipv6")
}

/** The host of a URL as an IP literal, if it is one (IPv6 without its brackets). */
export const literalAddress = (hostname: string): string | undefined => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  return net.isIP(bare) === 0 ? undefined : bare
}

/** Whether `hostname` is local by definition: `localhost`, a name under `.localhost` or `.local` (a trailing dot or not). */
export const isLocalName = (hostname: string): boolean => {
  const name = hostname.toLowerCase().replace(/\.$/, "")
  return name === "localhost" || name.endsWith(".localhost") || name === "local" || name.endsWith(".local")
}

/**
 * Why `url` cannot be a webhook endpoint, or undefined when it can: an absolute https URL (http too when
 * private addresses are allowed) without user or password, and neither a non-public IP literal nor a
 * name local by definition. Any other name is checked at each connection, against the addresses it
 * resolves to then.
 */
export const urlProblem = (url: string, allowPrivate: boolean): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "url must be an absolute URL"
  }
  if (parsed.protocol !== "https:" && !(allowPrivate && parsed.protocol === "http:")) {
    return allowPrivate ? "url must be an http or https URL" : "url must be an https URL"
  }
  if (parsed.username !== "" || parsed.password !== "") return "url must not contain a user or password"
  if (url.length > 2048) return "url must be at most 2048 characters"
  const literal = literalAddress(parsed.hostname)
  if (!allowPrivate && (literal !== undefined ? !isPublicAddress(literal) : isLocalName(parsed.hostname))) {
    return "url must not point to a private, loopback or otherwise non-public address"
  }
  return undefined
}
