/** The README's example, under a key prefix of this file's own. */
import { describe, expect, it } from "@effect/vitest"
import { runExample } from "../../testkit/test/support/ReadmeExample.js"
import * as TestRedis from "./support/TestRedis.js"

const redis = await TestRedis.make()

describe.skipIf("skip" in redis)(`README example${"skip" in redis ? ` (${redis.skip})` : ""}`, () => {
  it("allows an account two requests a minute and refuses the third", async () => {
    const { url, freshPrefix } = redis as TestRedis.TestRedis
    expect(await runExample("redis", { REDIS_URL: url, REDIS_PREFIX: freshPrefix() })).toBe("allowed, allowed, rate_limited\n")
  })
})
