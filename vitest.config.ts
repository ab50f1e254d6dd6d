import { configDefaults, defineConfig } from "vitest/config"

// The files that run on the project's own Node line only: `PETSTORE_TEST_LINE=other` (.ci/node-lines,
// on the other supported lines) leaves them out. Each is either about the project's own tools rather
// than the packages on a Node line, or the same JavaScript checked again at length where the code that
// differs between lines (Node's APIs, the native SQLite build) is already run by the files that stay.
// docs/testing.md ("Node lines") says what runs where and why; keep the two together.
const PROJECT_LINE_ONLY = [
  // The project's own Node: node_modules/.bin/node is the pinned line's binary by definition.
  "packages/server/test/ProjectNode.test.ts",
  // Drills of other programs, minutes each: HAProxy in front of three instances, Redis Sentinel's failover,
  // and Chromium loading /docs (the page's bytes are the same on every line; Health and ApiReference tests serve them).
  "packages/server/test/RollingRestart.test.ts",
  // The upgrade drill: HAProxy in front of the previous release (built for the project's line) and this one.
  "packages/server/test/Upgrade.test.ts",
  "packages/server/test/RedisSentinelFailover.test.ts",
  "packages/server/test/ApiReferenceBrowser.test.ts",
  // Chromium through every page of the console (about 2 to 3 minutes): the same bundle on every line; its server side
  // (sessions, shell, assets) is tested on every line by packages/http-node/test/HttpConsole*.test.ts.
  "packages/server/test/ConsoleBrowser.test.ts",
  // The conformance checker's own logic against in-process servers (planted faults, replays, several
  // instances); every line runs the checker against a real server on that line instead (.ci/conformance-sqlite).
  "packages/testkit/test/FaultInjection.test.ts",
  "packages/testkit/test/Conformance.test.ts",
  "packages/testkit/test/WebhookConformance.test.ts",
  "packages/testkit/test/UsageConformance.test.ts",
  "packages/testkit/test/MultiInstance.test.ts",
  // Property laws over stores whose driver is JavaScript (pg) or that only wrap another store (metrics):
  // the same code on every line; the SQLite and in-memory laws (a native addon, and the reference) stay.
  "packages/postgres/test/PostgresLaws.test.ts",
  "packages/server/test/InstrumentedStoreLaws.test.ts"
]
const otherLine = process.env.PETSTORE_TEST_LINE === "other"

// Workspace packages resolve to their TypeScript sources (the "source" export condition), so tests
// never run against a stale build and mutation testing sees every change.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    exclude: otherLine ? [...configDefaults.exclude, ...PROJECT_LINE_ONLY] : configDefaults.exclude,
    // Test files wait on servers, databases and child processes more than they compute: two at a time on
    // the other lines (vitest's default is one less than the CPUs, one on a 2-core machine).
    ...(otherLine ? { maxWorkers: 2 } : {}),
    server: { deps: { inline: [/@petstore\//] } },
    // What tests print (in-process servers' logs among it) is shown only for a test that fails; a
    // spawned server's output is kept by its helper and printed then too (test/support/ServerProcess.ts).
    silent: "passed-only",
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
