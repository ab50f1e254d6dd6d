/** The README's example, against a database of this file's own. */
import { describe, expect, it } from "@effect/vitest"
import { runExample } from "../../testkit/test/support/ReadmeExample.js"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

describe.skipIf("skip" in database)(`README example${"skip" in database ? ` (${database.skip})` : ""}`, () => {
  it("writes a pet through one pool and reads it through another", async () => {
    const { url } = database as TestDatabase.TestDatabase
    expect(await runExample("postgres", { DATABASE_URL: url })).toMatch(/^pet 1: Rex, on postgres:\/\/postgres@/)
  })
})
