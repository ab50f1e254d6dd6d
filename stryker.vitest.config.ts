// The core's own tests, for mutation testing of packages/core (see stryker.config.json).
import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["source"] },
  test: {
    include: ["packages/core/test/**/*.test.ts"],
    testTimeout: 30_000
  }
})
