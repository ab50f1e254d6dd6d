// The tests that exercise the modules of the mutation gate (stryker.gate.json): the limiter, the keys
// and pagination. Fewer files than the whole core's keep the gate fast, since a mutant that is
// reached while a file loads (a module-level definition) runs every file listed here.
import { defineConfig } from "vitest/config"
import core from "./stryker.vitest.config.js"

export default defineConfig({
  ...core,
  test: {
    ...core.test,
    include: [
      "TokenBucket", "DailyQuota", "BanPolicy", "LimitDecision", "RateLimiter", "RateLimiterSweep",
      "ApiKey", "Accounts", "AccountsListUpdate", "PageCursor", "Pets", "Petstore", "SchemaProperties"
    ].map((name) => `packages/core/test/${name}.test.ts`)
  }
})
