import { defineConfig } from "vitest/config"

// Workspace packages resolve to their TypeScript sources (the "source" export condition), so tests
// never run against a stale build and mutation testing sees every change.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    server: { deps: { inline: [/@petstore\//] } },
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
