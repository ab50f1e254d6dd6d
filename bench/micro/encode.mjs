// Encoding a 20-pet list page, and the per-response header work around it:
//   - JSON.stringify + Buffer.from: what our server does (App → NodeHandler);
//   - Effect Schema encode + JSON.stringify: what HttpApiBuilder would do (for comparison);
//   - fast-json-stringify compiled from the Pets JSON Schema: a compiled serializer (Fastify's way);
//   - RateLimitHeaders.write: the X-RateLimit-*, RateLimit-Policy and RateLimit fields of one decision
//     (an internal module of the package, read from its build: `pnpm bench` builds first).
import { BanPolicy, LimitDecision, Pet } from "@petstore/core"
import * as RateLimitHeaders from "../../packages/http-node/dist/internal/rateLimitHeaders.js"
import { Schema } from "effect"
import fastJson from "fast-json-stringify"
import { firstPage } from "../fixture.mjs"
import { nsPerOp, report } from "./harness.mjs"

const page = firstPage()
const expected = JSON.stringify(page)

const encodePets = Schema.encodeSync(Pet.Pets)
const compiled = fastJson({
  type: "array",
  items: {
    type: "object",
    required: ["id", "name", "categoryId", "status"],
    properties: {
      id: { type: "integer" },
      name: { type: "string" },
      categoryId: { type: "integer" },
      status: { type: "string" }
    }
  }
})
if (compiled(page) !== expected) throw new Error("fast-json-stringify output differs from JSON.stringify")
if (JSON.stringify(encodePets(page)) !== expected) throw new Error("Schema encode output differs")

const limits = { perMinute: 1_000_000, perDay: 1_000_000_000 }
const now = Date.now()
const { decision } = LimitDecision.decide(limits, LimitDecision.freshUsage(limits, now), BanPolicy.CLEAN, now, 1, BanPolicy.DEFAULT_OPTIONS)

report("encode", [
  {
    id: "json-stringify",
    label: "20-pet page: JSON.stringify + Buffer.from (our server)",
    value: nsPerOp(() => Buffer.from(JSON.stringify(page)).length),
    unit: "ns"
  },
  {
    id: "schema-encode",
    label: "20-pet page: Schema.encodeSync(Pets) + JSON.stringify (HttpApiBuilder's way)",
    value: nsPerOp(() => JSON.stringify(encodePets(page)).length),
    unit: "ns"
  },
  {
    id: "fast-json-stringify",
    label: "20-pet page: fast-json-stringify (compiled) + Buffer.from",
    value: nsPerOp(() => Buffer.from(compiled(page)).length),
    unit: "ns"
  },
  {
    id: "ratelimit-headers",
    label: "RateLimitHeaders.write of one decision (5 header values)",
    value: nsPerOp(() => {
      const headers = {}
      RateLimitHeaders.write(headers, decision, now)
      return headers.RateLimit.length
    }),
    unit: "ns"
  }
])
