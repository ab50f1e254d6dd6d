/**
 * `petstore-conformance --base-url URL (--admin-token T | --key K[:LIMITS] ...) [--runs N] [--seed S]`
 * runs the conformance suite against a server and exits non-zero on any failure.
 */
import { parseArgs } from "node:util"
import { formatReport, parseKey, runConformance } from "./conformance/Runner.js"
import * as Progress from "./internal/Progress.js"

const USAGE = `Usage: petstore-conformance --base-url URL (--admin-token TOKEN | --key KEY[:LIMITS] ...) [options]

Checks a pet store server against its OpenAPI document and a model of the interface's rules.

  --base-url URL        the server's origin, e.g. http://127.0.0.1:8080; repeat it for several
                        instances of one deployment (requests go to each in turn)
  --admin-token TOKEN   create accounts and keys through /admin/v1 (or env PETSTORE_ADMIN_TOKEN)
  --key KEY[:LIMITS]    a key to use instead (repeatable, one per account); LIMITS is free (default),
                        pro, business or PER_MINUTE/PER_DAY
  --runs N              command sequences to run (default 600)
  --max-commands N      longest sequence (default 40)
  --seed S              replay a run
  --path P              with --seed: run only the failing sequence at fast-check's path P
  --replay-path R       with --path: which of its commands ran (both are printed with a failure)
  --time-limit S        stop after S seconds, shrinking included (default 90)
  --min-runs N          fail when the time limit stops the run before N sequences (default 0)
  --prefix PATH         path prefix of the public API (default /v1)
  --messages-prefix P   base path of the message example (default: the prefix)
  --ban-threshold N     early requests tolerated before a ban (default 10)
  --ban-seconds N       length of a first ban (default 900)
  --ban-grace-ms N      after a wait's first 429, how long refused requests do not count toward a
                        ban (default 250)
  --failed-auth-per-minute N   failed authentications per address per minute (default 100)
  --revocation-bound-ms N      with several instances: how long after a revocation another instance
                        may still accept the key, as the server publishes it (default 0)
  --webhook-receiver    start a webhook receiver on loopback, set it as the endpoint of every account
                        the run creates (needs --admin-token, and a server run with
                        PETSTORE_WEBHOOK_ALLOW_PRIVATE=true), and check at the end that every message
                        accepted with 202 arrived there at least once, signed with the secret the PUT
                        answered (standardwebhooks), with its id as webhook-id and its text as data
  --webhook-host H      the receiver's address (default 127.0.0.1)
  --webhook-port N      the receiver's port (default 0: a free one)
  --webhook-wait S      how long to wait for the last deliveries after the run (default 30)
`

const main = async (): Promise<number> => {
  let values
  try {
    ;({ values } = parseArgs({
      options: {
        "base-url": { type: "string", multiple: true },
        "admin-token": { type: "string" },
        key: { type: "string", multiple: true },
        runs: { type: "string" },
        "max-commands": { type: "string" },
        seed: { type: "string" },
        path: { type: "string" },
        "replay-path": { type: "string" },
        "time-limit": { type: "string" },
        "min-runs": { type: "string" },
        prefix: { type: "string" },
        "messages-prefix": { type: "string" },
        "ban-threshold": { type: "string" },
        "ban-seconds": { type: "string" },
        "ban-grace-ms": { type: "string" },
        "failed-auth-per-minute": { type: "string" },
        "revocation-bound-ms": { type: "string" },
        "webhook-receiver": { type: "boolean" },
        "webhook-host": { type: "string" },
        "webhook-port": { type: "string" },
        "webhook-wait": { type: "string" },
        help: { type: "boolean", short: "h" }
      }
    }))
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}`)
    return 2
  }
  if (values.help === true) {
    process.stdout.write(USAGE)
    return 0
  }
  const int = (name: string, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined
    if (!/^-?\d+$/.test(raw)) throw new Error(`--${name} must be an integer, got ${JSON.stringify(raw)}`)
    return Number(raw)
  }
  try {
    const baseUrl = values["base-url"] ?? []
    if (baseUrl.length === 0) throw new Error("--base-url is required")
    const adminToken = values["admin-token"] ?? process.env.PETSTORE_ADMIN_TOKEN
    const keys = (values.key ?? []).map(parseKey)
    if ((adminToken === undefined || adminToken === "") && keys.length === 0) throw new Error("give --admin-token or at least one --key")
    const expectations = {
      ...(values["ban-threshold"] !== undefined ? { banThreshold: int("ban-threshold", values["ban-threshold"])! } : {}),
      ...(values["ban-seconds"] !== undefined ? { banSeconds: int("ban-seconds", values["ban-seconds"])! } : {}),
      ...(values["ban-grace-ms"] !== undefined ? { banGraceMs: int("ban-grace-ms", values["ban-grace-ms"])! } : {}),
      ...(values["failed-auth-per-minute"] !== undefined
        ? { failedAuthPerMinute: int("failed-auth-per-minute", values["failed-auth-per-minute"])! }
        : {}),
      ...(values["revocation-bound-ms"] !== undefined
        ? { revocationBoundMs: int("revocation-bound-ms", values["revocation-bound-ms"])! }
        : {})
    }
    if (values.path !== undefined && values.seed === undefined) throw new Error("--path needs the --seed it was printed with")
    if (values["replay-path"] !== undefined && values.path === undefined) throw new Error("--replay-path needs --path")
    const timeLimit = int("time-limit", values["time-limit"])
    const receiverOptions = values["webhook-host"] !== undefined || values["webhook-port"] !== undefined || values["webhook-wait"] !== undefined
    if (receiverOptions && values["webhook-receiver"] !== true) throw new Error("--webhook-host, --webhook-port and --webhook-wait go with --webhook-receiver")
    const webhookWait = int("webhook-wait", values["webhook-wait"])
    const progress = Progress.start(process.stderr)
    const report = await runConformance({
      baseUrl,
      adminToken: keys.length > 0 && values["admin-token"] === undefined ? undefined : adminToken,
      keys,
      numRuns: int("runs", values.runs),
      maxCommands: int("max-commands", values["max-commands"]),
      seed: int("seed", values.seed),
      path: values.path,
      replayPath: values["replay-path"],
      timeLimitMs: timeLimit === undefined ? undefined : timeLimit * 1000,
      minRuns: int("min-runs", values["min-runs"]),
      publicPrefix: values.prefix,
      messagesPrefix: values["messages-prefix"],
      expectations,
      webhookReceiver: values["webhook-receiver"] === true
        ? { host: values["webhook-host"], port: int("webhook-port", values["webhook-port"]) }
        : undefined,
      webhookWaitMs: webhookWait === undefined ? undefined : webhookWait * 1000,
      log: progress.log,
      progress: ({ of, requests, sequences }) => progress.set(`conformance: ${sequences} of ${of} sequences run, ${requests} requests`)
    }).finally(progress.end)
    process.stdout.write(`${formatReport(report)}\n`)
    return report.ok ? 0 : 1
  } catch (e) {
    process.stderr.write(`petstore-conformance: ${(e as Error).message}\n`)
    return 2
  }
}

main().then((code) => process.exit(code))
