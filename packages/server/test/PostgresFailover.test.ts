/**
 * PostgreSQL failover seen by a real server process: the configured address (a TCP proxy) reaches a
 * primary of the test's own with a streaming standby (support/PgCluster). The failover: the standby
 * has replayed everything, the old primary is fenced read-only (as a demoted primary answers), the
 * standby is promoted, and the address now reaches it. The server's open connections still reach the
 * old primary and answer "read-only": they are dropped, every one of them (none goes on serving reads
 * from the old primary), and the server serves writes again within 5 s (its database timeout is
 * 1 s), with no lasting read-only errors and nothing acknowledged lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as PgCluster from "../../postgres/test/support/PgCluster.js"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, get, post, type TestAccount } from "./support/Http.js"
import { pollUntil, type Server, start, stop } from "./support/ServerProcess.js"
import * as TcpProxy from "./support/TcpProxy.js"

const canRun = PgCluster.availableOrFail()
/** The promised bound: serving again within 5 s of the new primary being reachable. */
const AGAIN_MS = 5_000

describe.skipIf(!canRun)("PostgreSQL failover to a promoted standby", () => {
  let cluster: PgCluster.PgCluster
  let proxy: TcpProxy.TcpProxy
  let server: Server
  let account: TestAccount

  beforeAll(async () => {
    cluster = await PgCluster.start()
    proxy = await TcpProxy.before(cluster.primary.url, 5432)
    server = await start({
      PETSTORE_DATABASE: TcpProxy.through(cluster.primary.url, proxy),
      PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
      PETSTORE_DATABASE_TIMEOUT_MS: "1000",
      PETSTORE_DATABASE_POOL_SIZE: "4"
    })
    account = await createAccount(server.url)
  }, 120_000)
  afterAll(async () => {
    await stop(server)
    await proxy?.close()
    cluster?.stop()
  })

  it("drops the connections that answer read-only and serves again within 5 s; nothing acknowledged lost", async () => {
    const acknowledged: Array<number> = []
    for (let i = 0; i < 20; i++) {
      const reply = await post(server.url, "/v1/pets", account.key, { name: `before ${i}`, categoryId: 1 })
      expect(reply.status).toBe(201)
      acknowledged.push(reply.body.id)
    }
    // Every connection of the pool open on the primary: reads of pets that do not exist, at once.
    for (const reply of await Promise.all(Array.from({ length: 8 }, (_, i) => get(server.url, `/v1/pets/${1_000_000 + i}`, account.key)))) {
      expect(reply.status).toBe(404)
    }
    const primary = TestDatabase.connect(cluster.primary.url)
    const standby = TestDatabase.connect(cluster.standby.url)
    try {
      // Everything the primary committed has reached the standby before it takes over.
      const [{ lsn }] = (await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")) as [{ lsn: string }]
      await pollUntil("the standby to replay the primary's WAL", async () => {
        const [row] = await standby.query<{ done: boolean }>("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done", [lsn])
        return row?.done === true ? true : undefined
      }, 200, 50)
      await primary.query("ALTER SYSTEM SET default_transaction_read_only = on")
      await primary.query("SELECT pg_reload_conf()")
      cluster.promote()
      proxy.retarget("127.0.0.1", cluster.standby.port)
      const since = performance.now()

      const refused: Array<number> = []
      const first = await pollUntil("a write to succeed on the new primary", async () => {
        const reply = await post(server.url, "/v1/pets", account.key, { name: "after", categoryId: 1 })
        if (reply.status === 201) return reply
        expect(reply.status).toBe(503)
        expect(reply.body.code).toBe("unavailable")
        refused.push(reply.status)
        return undefined
      }, 400, 25)
      const again = performance.now() - since
      acknowledged.push(first.body.id)
      // No lasting read-only errors, and no reads from the old primary: every write after that
      // succeeds, and is read back at once (several requests at a time, so every connection serves).
      for (let i = 0; i < 6; i++) {
        const replies = await Promise.all(
          Array.from({ length: 4 }, (_, j) => post(server.url, "/v1/pets", account.key, { name: `after ${i}-${j}`, categoryId: 1 }))
        )
        for (const reply of replies) expect(reply.status).toBe(201)
        acknowledged.push(...replies.map((r) => r.body.id as number))
        const reads = await Promise.all(replies.map((r) => get(server.url, `/v1/pets/${r.body.id}`, account.key)))
        for (const read of reads) expect(read.status).toBe(200)
      }
      expect(again).toBeLessThanOrEqual(AGAIN_MS)
      // The first read-only answer drops every connection opened before it, not only its own: one
      // write (sent one at a time) is refused, not one per pooled connection.
      expect(refused.length).toBeLessThanOrEqual(1)
      console.log(`drill: PostgreSQL failover to a promoted standby: ${refused.length} writes answered 503, serving again ${Math.round(again)} ms after the new primary was reachable`)

      const rows = await standby.query<{ n: string }>("SELECT count(*)::text AS n FROM pets WHERE id = ANY($1::bigint[])", [acknowledged])
      expect(Number(rows[0]!.n)).toBe(acknowledged.length)
    } finally {
      await primary.end()
      await standby.end()
    }
  }, 120_000)
})
