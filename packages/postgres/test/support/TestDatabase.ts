/**
 * A PostgreSQL database of the test run's own: `PETSTORE_TEST_POSTGRES_URL` when set, else the local
 * server (127.0.0.1:5432, user postgres). Each test file makes a database of its own and drops it
 * at the end; each store built from `freshUrl` gets a new schema in it, so law suites start empty.
 * Where no PostgreSQL can be reached the tests are skipped with the reason, except under `CI=true`,
 * where that is a failure.
 */
import { afterAll } from "@effect/vitest"
import pg from "pg"

export const SERVER_URL = process.env.PETSTORE_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const withDatabase = (url: string, database: string, params: Record<string, string> = {}): string => {
  const u = new URL(url)
  u.pathname = `/${database}`
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v)
  return u.toString()
}

/** A small client for a test's own look at the database (int8 read as numbers). */
export interface Sql {
  readonly query: <R = Record<string, any>>(text: string, values?: ReadonlyArray<unknown>) => Promise<Array<R>>
  readonly end: () => Promise<void>
}

export const connect = (url: string): Sql => {
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: 3_000,
    types: { getTypeParser: ((oid: number, format?: string) => oid === 20 ? Number : pg.types.getTypeParser(oid, format as never)) as never }
  })
  pool.on("error", () => {})
  return {
    query: async (text, values = []) => (await pool.query(text, values as Array<unknown>)).rows,
    end: () => pool.end()
  }
}

/** Runs `f` on one connection of its own (for statements that must share a session: a transaction, a prepared statement). */
export const withClient = async <A>(url: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 })
  client.on("error", () => {})
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** Why PostgreSQL cannot be used here, or undefined when it can. */
const probe = async (): Promise<string | undefined> => {
  const sql = connect(SERVER_URL)
  try {
    await sql.query("SELECT 1")
    return undefined
  } catch (error) {
    return `PostgreSQL at ${new URL(SERVER_URL).host} cannot be reached (${(error as Error).message}); set PETSTORE_TEST_POSTGRES_URL`
  } finally {
    await sql.end()
  }
}

export interface TestDatabase {
  /** The URL of this file's database. */
  readonly url: string
  /** A URL whose connections work in a new, empty schema of this file's database. */
  readonly freshUrl: () => Promise<string>
}

/**
 * This file's database, or the reason there is none (the caller skips with it). Call at the top of
 * a test file with `await`; the database is dropped after the file's tests.
 */
export const make = async (): Promise<TestDatabase | { readonly skip: string }> => {
  const unreachable = await probe()
  if (unreachable !== undefined) {
    if (process.env.CI === "true") throw new Error(`CI=true and ${unreachable}`)
    return { skip: unreachable }
  }
  const name = `petstore_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const admin = connect(SERVER_URL)
  await admin.query(`CREATE DATABASE ${name}`)
  const url = withDatabase(SERVER_URL, name)
  const inDatabase = connect(url)
  let schemas = 0
  afterAll(async () => {
    await inDatabase.end()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })
  return {
    url,
    freshUrl: async () => {
      const schema = `s${++schemas}`
      await inDatabase.query(`CREATE SCHEMA ${schema}`)
      return withDatabase(SERVER_URL, name, { options: `-c search_path=${schema}` })
    }
  }
}
