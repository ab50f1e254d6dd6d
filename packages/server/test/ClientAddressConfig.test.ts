/**
 * PETSTORE_IPV6_SUBNET reaches the failed-authentication limit of the standalone server (100 a
 * minute per client): by default every address of one IPv6 /64 is one client; at 128, each address
 * is its own. Real HTTP, behind one trusted proxy (`X-Forwarded-For`).
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { config, type InProcessServer, start } from "./support/InProcessServer.js"

let server: InProcessServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const failFrom = (url: string, address: string) =>
  fetch(`${url}/v1/pets`, { headers: { authorization: "Bearer psk_live_wrong", "x-forwarded-for": address } }).then((r) => r.status)

/**
 * The statuses of 150 failed authentications, each from a new address of 2001:db8:1:2::/64. The
 * bucket refills 100 a minute as real time passes, so "limited" is: some 429 among them.
 */
const fromOneNetwork = async (env: Record<string, string>) => {
  server = await start(await config({ PETSTORE_TRUST_PROXY: "1", ...env }))
  const statuses = new Set<number>()
  for (let i = 1; i <= 150; i++) statuses.add(await failFrom(server.url, `2001:db8:1:2::${i.toString(16)}`))
  return [...statuses].sort()
}

describe("PETSTORE_IPV6_SUBNET", () => {
  it("unset: one /64 is one client, limited once it spent its 100 failures", async () => {
    expect(await fromOneNetwork({})).toEqual([401, 429])
  })

  it("128: each IPv6 address is a client of its own", async () => {
    expect(await fromOneNetwork({ PETSTORE_IPV6_SUBNET: "128" })).toEqual([401])
  })
})
