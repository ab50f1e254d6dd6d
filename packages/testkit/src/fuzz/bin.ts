/**
 * `petstore-fuzz --base-url URL (--admin-token T | --key K) [--requests N] [--seed S] [--connections C]`
 * sends seeded raw HTTP/1.1 exchanges to a server, checks every answer, prints the figures and
 * exits non-zero on any failure.
 */
import * as CommandLine from "../internal/CommandLine.js"
import { formatFuzzReport } from "./Report.js"
import { runFuzz } from "./Runner.js"
import * as Progress from "../internal/Progress.js"

const USAGE = `Usage: petstore-fuzz --base-url URL (--admin-token TOKEN | --key KEY) [options]

Sends seeded raw HTTP/1.1 exchanges (valid requests mixed with malformed JSON, bad UTF-8, deep
nesting, odd numbers, odd paths, methods and versions, header shapes, chunked bodies, pipelining,
garbage bytes) and checks every answer: no status >= 500, an Error body with application/json on
every error, the rate-limit headers where due, every owed answer in order, no reset and no hang.

  --base-url URL        the server's origin, e.g. http://127.0.0.1:8080
  --admin-token TOKEN   create the fuzzer's own account through /admin/v1 (or env PETSTORE_ADMIN_TOKEN)
  --key KEY             a key to use instead (its account's limits apply)
  --requests N          requests to send (default 2000)
  --seed S              replay a run
  --connections C       connections at a time (default 8)
  --only I              run only connection I of the run (to replay one failure)
  --deadline S          seconds without progress before an owed answer counts as hung (default 10)
  --shrink-time S       seconds to shrink each failure kind (default 30; 0: none)
  --prefix PATH         path prefix of the public API (default /v1)

Exits 0 when every answer passed, 1 on a failure, 2 on a usage error.
`

const main = async (): Promise<number> => {
  const values = CommandLine.parse(
    ["base-url", "admin-token", "key", "requests", "seed", "connections", "only", "deadline", "shrink-time", "prefix"],
    USAGE
  )
  if (typeof values === "number") return values
  const int = CommandLine.integer
  let options
  try {
    const baseUrl = values["base-url"]
    if (baseUrl === undefined) throw new Error("--base-url is required")
    const adminToken = values["admin-token"] ?? process.env.PETSTORE_ADMIN_TOKEN
    if ((adminToken === undefined || adminToken === "") && values.key === undefined) throw new Error("give --admin-token or --key")
    const deadline = int("deadline", values.deadline)
    const shrinkTime = int("shrink-time", values["shrink-time"])
    options = {
      baseUrl,
      adminToken,
      key: values.key,
      requests: int("requests", values.requests),
      seed: int("seed", values.seed),
      connections: int("connections", values.connections),
      only: int("only", values.only),
      deadlineMs: deadline === undefined ? undefined : deadline * 1000,
      shrinkTimeMs: shrinkTime === undefined ? undefined : shrinkTime * 1000,
      prefix: values.prefix,
    }
  } catch (e) {
    process.stderr.write(`petstore-fuzz: ${(e as Error).message}\n\n${USAGE}`)
    return 2
  }
  try {
    const progress = Progress.start(process.stderr)
    const report = await runFuzz({
      ...options,
      log: progress.log,
      progress: ({ failures, of, requests }) => progress.set(`fuzz: ${requests} of ${of} requests sent, ${failures} failures`)
    }).finally(progress.end)
    process.stdout.write(`${formatFuzzReport(report)}\n`)
    return report.ok ? 0 : 1
  } catch (e) {
    process.stderr.write(`petstore-fuzz: ${(e as Error).message}\n`)
    return 2
  }
}

main().then((code) => process.exit(code))
