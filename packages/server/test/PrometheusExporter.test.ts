/**
 * Node's process metrics as the exporter serves them: the CPU counters count from the start of the
 * process, not from the first scrape (prom-client's own counters start when they are registered).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Metrics } from "../src/Metrics.js"
import * as PrometheusExporter from "../src/PrometheusExporter.js"

const sample = (text: string, name: string): number => {
  const value = new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]
  if (value === undefined) throw new Error(`no ${name} in:\n${text}`)
  return Number(value)
}

describe("process metrics", () => {
  it.effect("process_cpu_seconds_total at the first scrape holds the CPU the process used before it", () =>
    Effect.gen(function*() {
      // The test process has used CPU already (loading, compiling, the tests before this one).
      const used = process.cpuUsage()
      const exporter = yield* PrometheusExporter.make(new Metrics())
      const text = yield* exporter.scrape
      expect(used.user + used.system).toBeGreaterThan(0)
      expect(sample(text, "process_cpu_seconds_total")).toBeGreaterThanOrEqual((used.user + used.system) / 1e6)
      expect(sample(text, "process_cpu_user_seconds_total")).toBeGreaterThanOrEqual(used.user / 1e6)
      expect(sample(text, "process_cpu_system_seconds_total")).toBeGreaterThanOrEqual(used.system / 1e6)
      // And it counts on from there: a later scrape is never lower.
      const again = yield* exporter.scrape
      expect(sample(again, "process_cpu_seconds_total")).toBeGreaterThanOrEqual(sample(text, "process_cpu_seconds_total"))
    }))
})
