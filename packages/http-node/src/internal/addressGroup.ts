/**
 * The key a client address is limited under: an IPv4 address as it is, an IPv6 address by its
 * network prefix (a /64 by default). One IPv6 client usually holds a whole /64 and can pick a new
 * address in it for every request, so per-address buckets would not limit it at all (the problem
 * express-rate-limit#502 describes). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a
 * dual-stack listener reports for an IPv4 client) is its IPv4 address, not a member of `::ffff:0:0/96`.
 */
import { isIP } from "node:net"

/** The default IPv6 prefix length addresses are grouped by. */
export const DEFAULT_IPV6_SUBNET = 64

/** The eight 16-bit groups of a valid IPv6 address (zone removed, an embedded IPv4 tail included). */
const hextets = (address: string): Array<number> => {
  let text = address.split("%")[0]!
  const tail = text.slice(text.lastIndexOf(":") + 1)
  if (tail.includes(".")) {
    const [a, b, c, d] = tail.split(".").map(Number) as [number, number, number, number]
    text = `${text.slice(0, text.length - tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, rest] = text.split("::") as [string, string | undefined]
  const left = head === "" ? [] : head.split(":")
  const right = rest === undefined || rest === "" ? [] : rest.split(":")
  const middle = rest === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0")
  return [...left, ...middle, ...right].map((group) => parseInt(group, 16))
}

/**
 * The limiter's key for `address` with IPv6 addresses grouped by their first `prefixLength` bits
 * (1..128): `2001:db8:1:2:0:0:0:0/64`. Anything that is not an IP address is returned as it is.
 */
export const group = (address: string, prefixLength: number): string => {
  if (isIP(address) !== 6) return address
  const groups = hextets(address)
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`
  }
  const masked = groups.map((g, i) => {
    const bits = Math.min(16, Math.max(0, prefixLength - i * 16))
    return bits === 16 ? g : g & (0xffff << (16 - bits)) & 0xffff
  })
  return `${masked.map((g) => g.toString(16)).join(":")}/${prefixLength}`
}
