/**
 * Redis for tests: `PETSTORE_TEST_REDIS_URL` when set, else the local server (127.0.0.1:6379). Each
 * test file works under a key prefix of its own and deletes its keys at the end. Where no Redis can
 * be reached the tests are skipped with the reason, except under `CI=true`, where that is a failure.
 */
import { afterAll } from "@effect/vitest"
import { createClient } from "@redis/client"

export const URL = process.env.PETSTORE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

const newClient = (url: string) => createClient({ url, socket: { connectTimeout: 2_000, reconnectStrategy: false } })
export type Client = ReturnType<typeof newClient>

/** A plain client for a test's own look at Redis. */
export const connect = async (url = URL): Promise<Client> => {
  const client = newClient(url)
  client.on("error", () => {})
  await client.connect()
  return client
}

export interface TestRedis {
  readonly url: string
  /** A prefix no other test (or run) uses; every key under the file's prefix is deleted at the end. */
  readonly freshPrefix: () => string
  readonly client: Client
  /** The keys under `prefix`, with their TTLs in ms. */
  readonly keysUnder: (prefix: string) => Promise<ReadonlyArray<{ readonly key: string; readonly ttl: number }>>
}

export const make = async (): Promise<TestRedis | { readonly skip: string }> => {
  let client: Client
  try {
    client = await connect()
    await client.ping()
  } catch (error) {
    const reason = `Redis at ${URL} cannot be reached (${(error as Error).message}); set PETSTORE_TEST_REDIS_URL`
    if (process.env.CI === "true") throw new Error(`CI=true and ${reason}`)
    return { skip: reason }
  }
  const root = `petstore-test:${process.pid}:${Math.random().toString(36).slice(2, 8)}:`
  let n = 0
  const keysUnder = async (prefix: string) => {
    const keys: Array<string> = []
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch)
    return Promise.all(keys.map(async (key) => ({ key, ttl: await client.pTTL(key) })))
  }
  afterAll(async () => {
    const keys = (await keysUnder(root)).map((k) => k.key)
    if (keys.length > 0) await client.unlink(keys)
    await client.close()
  })
  return { url: URL, freshPrefix: () => `${root}${++n}:`, client, keysUnder }
}
