/**
 * The pieces of the deploy drills behind HAProxy (RollingRestart.test.ts, Upgrade.test.ts): the
 * instances' settings, keep-alive clients without pause and what each request got, an instance
 * replaced under load, and the pets there after.
 */
import { randomUUID } from "node:crypto"
import type { Balancer } from "./Balancer.js"
import { ADMIN_TOKEN, request } from "./Http.js"
import { exited, pollUntil, type Server, type Settings } from "./ServerProcess.js"

/** An instance's settings in a drill: the shared PostgreSQL database and Redis, a drain HAProxy notices. */
export const drillSettings = (database: string, redis: { readonly url: string; readonly prefix: string }): Settings => ({
  PETSTORE_DATABASE: database,
  PETSTORE_DATABASE_POOL_SIZE: "4",
  PETSTORE_REDIS_URL: redis.url,
  PETSTORE_REDIS_PREFIX: redis.prefix,
  PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
  // Above what HAProxy's checks need to notice a draining instance (docs/deploy/haproxy.cfg).
  PETSTORE_DRAIN_DELAY_MS: "2000",
  // The drills are about restarts with Redis up: a machine so busy that one limiter call waited over
  // the default 250 ms was taken for Redis gone, each instance then limiting on its own (the quota
  // went one over: 41 of 40). Redis being away is RedisOutage.test.ts's drill.
  PETSTORE_REDIS_TIMEOUT_MS: "5000",
  PETSTORE_ACCESS_LOG: "false"
})

/**
 * The instance HAProxy calls `name` gets SIGTERM and must exit 0 once drained; then `replacement()`
 * starts the one to take its place (on a port of its own: the old one may be taken meanwhile; the
 * caller keeps it where it stops its servers), HAProxy is pointed at it, and this returns once HAProxy
 * holds it up.
 */
export const replaceInstance = async (balancer: Balancer, name: string, old: Server, replacement: () => Promise<Server>) => {
  old.process.kill("SIGTERM")
  await exited(old.process)
  if (old.process.exitCode !== 0) throw new Error(`${name} ended by ${old.process.signalCode ?? `exit ${old.process.exitCode}`} after SIGTERM, not exit 0`)
  const next = await replacement()
  await balancer.move(name, Number(new URL(next.url).port))
  await pollUntil(`HAProxy to hold ${name} up again`, async () => ((await balancer.up()).includes(name) ? true : undefined), 400, 50)
  return next
}

export interface Outcome {
  readonly what: string
  readonly status: number | "error"
  readonly detail?: string | undefined
}

/**
 * Twelve keep-alive clients through `base` until `running()` ends: reads, keyed creates, and (with
 * `quotaKey`) one client reading with the quota account. A create that got no answer is sent again
 * with the same key and body, as a client does (`retries` counts them); what it finally got is kept
 * by name.
 */
export const startClients = (base: string, key: string, quotaKey: string | undefined, running: () => boolean) => {
  const outcomes: Array<Outcome> = []
  const created = new Map<string, number>() // name → pet id acknowledged
  let retries = 0
  const create = (name: string, idempotencyKey: string) =>
    request(`${base}/v1/pets`, {
      method: "POST",
      key,
      headers: { "idempotency-key": idempotencyKey },
      body: JSON.stringify({ name, categoryId: 1 })
    })
  const client = async (n: number) => {
    for (let i = 0; running(); i++) {
      const kind = n === 0 && quotaKey !== undefined ? "quota" : i % 2 === 0 ? "create" : "read"
      const idempotencyKey = randomUUID()
      const name = `drill ${idempotencyKey}`
      try {
        const reply = kind === "create"
          ? await create(name, idempotencyKey)
          : await request(`${base}/v1/pets?limit=5`, { key: kind === "quota" ? quotaKey! : key })
        outcomes.push({ what: kind, status: reply.status, detail: reply.status >= 400 ? JSON.stringify(reply.body) : undefined })
        if (kind === "create" && reply.status === 201) created.set(name, reply.body.id)
      } catch (error) {
        outcomes.push({ what: kind, status: "error", detail: String((error as { cause?: unknown }).cause ?? error) })
        if (kind !== "create") continue
        for (let attempt = 0; attempt < 20; attempt++) {
          retries++
          const again = await create(name, idempotencyKey).catch(() => undefined)
          if (again?.status === 201) {
            created.set(name, again.body.id)
            break
          }
        }
      }
    }
  }
  const clients = Array.from({ length: 12 }, (_, n) => client(n))
  return { outcomes, created, retries: () => retries, done: () => Promise.all(clients) }
}

/** The outcomes that count as failed: no answer, a 5xx, or a 4xx outside the quota client's refusals. */
export const failures = (outcomes: ReadonlyArray<Outcome>) =>
  outcomes.filter((o) => o.status === "error" || o.status >= 500 || (o.what !== "quota" && o.status >= 400))

/** Every pet's name, how many pets have it. */
export const petsByName = async (base: string, key: string) => {
  const counts = new Map<string, number>()
  let next: string | undefined = "/v1/pets?limit=100"
  while (next !== undefined) {
    const page = await request(`${base}${next}`, { key })
    for (const pet of page.body as Array<{ name: string }>) counts.set(pet.name, (counts.get(pet.name) ?? 0) + 1)
    next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get("link") ?? "")?.[1]
  }
  return counts
}
