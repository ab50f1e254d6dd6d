/**
 * The migration policy (docs/storage.md, "expand, then contract one release later"): a migration
 * that does not set `requiresProgram` only adds what the previous release does not read, so both
 * releases serve together during a rolling deploy.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Postgres from "@petstore/postgres"

/** Why `statement` is not additive, or undefined when it is (`created`: the tables its migration creates). */
const notAdditive = (statement: string, created: ReadonlySet<string>): string | undefined => {
  // A function's body (between $$) is one statement's argument, not statements of the migration.
  const sql = statement.replace(/\$\$[\s\S]*?\$\$/g, "$$$$").replace(/--[^\n]*/g, " ").replace(/\s+/g, " ").trim().replace(/;$/, "")
  if (sql.includes(";")) return "holds several statements: one statement a string, so that each is checked"
  if (/^CREATE TABLE (IF NOT EXISTS )?\w+/i.test(sql)) return undefined
  // A new sequence or a new function: nothing the previous release reads. (CREATE OR REPLACE could change one it calls.)
  if (/^CREATE SEQUENCE (IF NOT EXISTS )?\w+/i.test(sql) || /^CREATE FUNCTION \w+/i.test(sql)) return undefined
  const index = /^CREATE (UNIQUE )?INDEX (CONCURRENTLY )?(IF NOT EXISTS )?\w+ ON (\w+)/i.exec(sql)
  if (index !== null) {
    // A unique index on a table the previous release writes could refuse its inserts.
    return index[1] !== undefined && !created.has(index[4]!.toLowerCase()) ? "adds a unique index to a table the previous release writes" : undefined
  }
  const insert = /^INSERT INTO (\w+)/i.exec(sql)
  if (insert !== null) return created.has(insert[1]!.toLowerCase()) ? undefined : "writes rows into a table the previous release uses"
  const add = /^ALTER TABLE (\w+) ADD COLUMN (IF NOT EXISTS )?(\w+) (.*)$/i.exec(sql)
  if (add !== null) {
    const definition = add[4]!
    return /\bNOT NULL\b/i.test(definition) && !/\bDEFAULT\b/i.test(definition)
      ? `adds ${add[3]} NOT NULL without a default: the previous release's inserts would fail`
      : undefined
  }
  return `is not one of the additive forms (CREATE TABLE, CREATE INDEX, INSERT into a new table, ADD COLUMN nullable or with a default): ${sql.slice(0, 80)}`
}

/**
 * Why `statement` does not fit where it runs (`outside`: in a migration run outside the transaction),
 * or undefined: PostgreSQL refuses CONCURRENTLY in a transaction, and outside one a run that stopped
 * halfway must be safe to run again (`IF NOT EXISTS`; an INVALID index left behind is rebuilt).
 */
const outsideTransactionProblem = (statement: string, outside: boolean): string | undefined => {
  const concurrently = /\bCONCURRENTLY\b/i.test(statement)
  if (!outside) return concurrently ? "uses CONCURRENTLY in a migration that does not set outsideTransaction" : undefined
  return /^\s*CREATE (UNIQUE )?INDEX CONCURRENTLY IF NOT EXISTS \w+ ON \w+/i.test(statement)
    ? undefined
    : "a migration outside the transaction holds only CREATE INDEX CONCURRENTLY IF NOT EXISTS statements"
}

const createdBy = (statements: ReadonlyArray<string>) =>
  new Set(statements.flatMap((s) => {
    const m = /CREATE TABLE (?:IF NOT EXISTS )?(\w+)/i.exec(s)
    return m === null ? [] : [m[1]!.toLowerCase()]
  }))

describe("the PostgreSQL migration policy", () => {
  it("every migration without requiresProgram is additive", () => {
    for (const m of Postgres.Migrations.MIGRATIONS) {
      if (m.requiresProgram !== undefined) continue
      const created = createdBy(m.statements)
      for (const statement of m.statements) {
        expect(notAdditive(statement, created), `migration ${m.id} ${m.name}`).toBeUndefined()
      }
    }
  })

  it("CONCURRENTLY only outside the transaction, and there only CREATE INDEX CONCURRENTLY IF NOT EXISTS", () => {
    for (const m of Postgres.Migrations.MIGRATIONS) {
      for (const statement of m.statements) {
        expect(outsideTransactionProblem(statement, m.outsideTransaction === true), `migration ${m.id} ${m.name}`).toBeUndefined()
      }
    }
    expect(outsideTransactionProblem("CREATE INDEX CONCURRENTLY pets_by_name ON pets (name)", false)).toEqual(expect.any(String))
    expect(outsideTransactionProblem("CREATE INDEX CONCURRENTLY pets_by_name ON pets (name)", true)).toEqual(expect.any(String))
    expect(outsideTransactionProblem("CREATE INDEX pets_by_name ON pets (name)", true)).toEqual(expect.any(String))
    expect(outsideTransactionProblem("ALTER TABLE pets ADD COLUMN owner text", true)).toEqual(expect.any(String))
    expect(outsideTransactionProblem("CREATE INDEX CONCURRENTLY IF NOT EXISTS pets_by_name ON pets (name)", true)).toBeUndefined()
    expect(outsideTransactionProblem("CREATE INDEX IF NOT EXISTS pets_by_name ON pets (name)", false)).toBeUndefined()
  })

  it("the check refuses what would break the previous release", () => {
    const none = new Set<string>()
    for (
      const statement of [
        "ALTER TABLE pets DROP COLUMN status",
        "ALTER TABLE pets RENAME COLUMN name TO title",
        "ALTER TABLE pets ALTER COLUMN name TYPE varchar(10)",
        "ALTER TABLE pets ALTER COLUMN status SET NOT NULL",
        "ALTER TABLE pets ADD COLUMN owner text NOT NULL",
        "DROP TABLE pets",
        "DROP INDEX pets_by_status",
        "UPDATE pets SET status = 'sold'",
        "DELETE FROM messages",
        "INSERT INTO pets (id, name) VALUES (1, 'x')",
        "CREATE UNIQUE INDEX pets_by_name ON pets (name)",
        "CREATE TABLE owners (id text); DROP TABLE pets",
        "CREATE OR REPLACE FUNCTION petstore_take_pet_ids(wanted integer) RETURNS bigint[] LANGUAGE sql AS $$ SELECT '{}'::bigint[] $$",
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$ SELECT 1 $$; DROP TABLE pets"
      ]
    ) expect(notAdditive(statement, none), statement).toEqual(expect.any(String))
    for (
      const statement of [
        "CREATE TABLE owners (id text PRIMARY KEY)",
        "CREATE INDEX IF NOT EXISTS pets_by_name ON pets (name)",
        "CREATE INDEX CONCURRENTLY pets_by_name ON pets (name)",
        "ALTER TABLE pets ADD COLUMN owner text",
        "ALTER TABLE pets ADD COLUMN weight integer NOT NULL DEFAULT 0",
        "CREATE SEQUENCE owner_ids CACHE 1",
        "CREATE FUNCTION owner_count() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$"
      ]
    ) expect(notAdditive(statement, none), statement).toBeUndefined()
    expect(notAdditive("INSERT INTO owners (id) VALUES ('a')", new Set(["owners"]))).toBeUndefined()
    expect(notAdditive("CREATE UNIQUE INDEX owners_by_name ON owners (name)", new Set(["owners"]))).toBeUndefined()
  })
})
