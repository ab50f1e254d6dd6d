import { defineConfig } from "vitest/config"

// Workspace packages resolve to their TypeScript sources (the "source" export condition), so tests
// never run against a stale build and mutation testing sees every change.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    server: { deps: { inline: [/@petstore\//] } },
    // What tests print (in-process servers' logs among it) is shown only for a test that fails; a
    // spawned server's output is kept by its helper and printed then too (test/support/ServerProcess.ts).
    silent: "passed-only",
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
