// Key verification: the SHA-256 of a key alone, and Accounts.verify (shape check, hash, lookup by
// hash, state check, account lookup) on the in-memory store with 10 000 accounts, inside a running
// fiber as a request calls it; also a malformed token, which must stay cheap.
import { Accounts, MessageProcessor, Petstore } from "@petstore/core"
import { Effect, Layer, Option, Redacted } from "effect"
import { consume, nsPerOp, nsPerOpBatched, QUICK, report } from "./harness.mjs"
import { createHash } from "node:crypto"

const ACCOUNTS = QUICK ? 2_000 : 10_000
const layer = Petstore.layerMemory({ environment: "production" }).pipe(Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly))

const { keys, verify } = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const accounts = yield* Accounts.Accounts
  const keys = []
  for (let i = 0; i < ACCOUNTS; i++) {
    const { key } = yield* accounts.create({ plan: "pro" })
    keys.push(Redacted.value(key.key))
  }
  return { keys, verify: accounts.verify }
}).pipe(Effect.provide(layer))))

const verifyInFiber = (n) =>
  Effect.runSync(Effect.gen(function*() {
    let found = 0
    for (let i = 0; i < n; i++) if (Option.isSome(yield* verify(keys[i % ACCOUNTS]))) found++
    if (found !== n) throw new Error(`verified ${found} of ${n}`)
    consume(found)
  }))

const malformed = "not-a-key"
report("keys", [
  {
    id: "sha256",
    label: "SHA-256 hex of a key (node:crypto createHash)",
    value: nsPerOp((i) => createHash("sha256").update(keys[i % ACCOUNTS]).digest("hex").length),
    unit: "ns"
  },
  {
    id: "verify",
    label: `Accounts.verify of a valid key inside a running fiber, ${ACCOUNTS.toLocaleString("en")} accounts in memory`,
    value: nsPerOpBatched(verifyInFiber, QUICK ? 30_000 : 100_000),
    unit: "ns"
  },
  {
    id: "verify-malformed",
    label: "Accounts.verify of a malformed token (no hash, no lookup)",
    value: nsPerOpBatched((n) =>
      Effect.runSync(Effect.gen(function*() {
        for (let i = 0; i < n; i++) consume(Option.isNone(yield* verify(malformed)) ? 1 : 0)
      })), QUICK ? 30_000 : 100_000),
    unit: "ns"
  }
])
