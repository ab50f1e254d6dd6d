import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import {
  accountStoreLaws,
  consoleSessionStoreLaws,
  cursorSecretStoreLaws,
  idempotencyLaws,
  limiterPersistenceLaws,
  limiterStateStoreLaws,
  messageStoreLaws,
  petRepositoryLaws,
  readinessLaws,
  serviceLaws,
  usageStoreLaws,
  webhookStoreLaws
} from "@petstore/testkit/laws"
import * as Sqlite from "@petstore/sqlite"

// Every build is a new, empty database: in memory, or a new file (WAL, synchronous=FULL) in a temp folder.
const inMemory = Sqlite.layer({ filename: ":memory:" })

const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-laws-"))
let files = 0
const onFile = Layer.unwrap(Effect.sync(() => Sqlite.layer({ filename: Path.join(folder, `laws-${++files}.db`) })))

petRepositoryLaws("sqlite :memory:", inMemory)
accountStoreLaws("sqlite :memory:", inMemory)
messageStoreLaws("sqlite :memory:", inMemory)
webhookStoreLaws("sqlite :memory:", inMemory)
limiterStateStoreLaws("sqlite :memory:", Sqlite.LimiterStateStoreSqlite.layer.pipe(Layer.provide(Sqlite.SqlitePetstore.layerDatabase({ filename: ":memory:" }))))
serviceLaws("sqlite :memory:", { pets: inMemory, accounts: inMemory, messages: inMemory })
idempotencyLaws("sqlite :memory:", inMemory)
consoleSessionStoreLaws("sqlite :memory:", inMemory)

// The same laws on real files (fewer runs: each write is an fsync).
petRepositoryLaws("sqlite file", onFile, { numRuns: 5 })
accountStoreLaws("sqlite file", onFile, { numRuns: 5 })
messageStoreLaws("sqlite file", onFile, { numRuns: 5 })
webhookStoreLaws("sqlite file", onFile, { numRuns: 5 })
serviceLaws("sqlite file", { pets: onFile, accounts: onFile, messages: onFile }, { numRuns: 3 })
idempotencyLaws("sqlite file", onFile, { numRuns: 4 })
consoleSessionStoreLaws("sqlite file", onFile, { numRuns: 4 })

// The cursor secret kept in a file: a new file per database, opened by several "processes".
cursorSecretStoreLaws("sqlite file", {
  database: Effect.sync(() => Path.join(folder, `secret-${++files}.db`)),
  signer: (filename) => Sqlite.layer({ filename })
}, { numRuns: 5 })
// The limiter's daily counts and bans kept in a file.
limiterStateStoreLaws(
  "sqlite file",
  Layer.unwrap(Effect.sync(() =>
    Sqlite.LimiterStateStoreSqlite.layer.pipe(Layer.provide(Sqlite.SqlitePetstore.layerDatabase({ filename: Path.join(folder, `limiter-${++files}.db`) })))
  )),
  { numRuns: 5 }
)
// The limiter written behind to a file, read back by the next process on it.
limiterPersistenceLaws("sqlite file", {
  database: Effect.sync(() => Path.join(folder, `persistence-${++files}.db`)),
  stateStore: (filename) => Sqlite.LimiterStateStoreSqlite.layer.pipe(Layer.provide(Sqlite.SqlitePetstore.layerDatabase({ filename })))
}, { numRuns: 5 })
// The store's readiness on a file. The file is in this process (no server to stop or cut off), so
// there is no outage to put it through: its laws are those of a store that answers.
readinessLaws("sqlite file", {
  port: "store",
  dependency: Effect.sync(() => ({
    layer: Sqlite.layer({ filename: Path.join(folder, `readiness-${++files}.db`) }),
    outage: () => ({ begin: Effect.void, end: Effect.void }),
    secrets: []
  })),
  away: "down",
  outages: []
}, { numRuns: 3 })
// Usage counts, in memory and in a file.
usageStoreLaws("sqlite :memory:", Sqlite.UsageStoreSqlite.layer.pipe(Layer.provide(Sqlite.SqlitePetstore.layerDatabase({ filename: ":memory:" }))))
usageStoreLaws(
  "sqlite file",
  Layer.unwrap(Effect.sync(() =>
    Sqlite.UsageStoreSqlite.layer.pipe(Layer.provide(Sqlite.SqlitePetstore.layerDatabase({ filename: Path.join(folder, `usage-${++files}.db`) })))
  )),
  { numRuns: 5 }
)
