/**
 * The command line that replays a failure: the options of the run that matter to what it sent (no
 * secrets: the admin token and keys stay shell variables), the seed, and fast-check's path to the
 * shrunk counterexample with the commands' replay path, so the same shortest sequence runs again.
 */
import type { Expectations } from "./Expectations.js"

/** What a replay needs of the run. @category models */
export interface ReplaySource {
  readonly baseUrls: ReadonlyArray<string>
  readonly admin: boolean
  readonly webhookReceiver?: boolean | undefined
  /** The limits of each given key, in order (`KEY_1`, `KEY_2` ...). */
  readonly keyLimits: ReadonlyArray<{ readonly perMinute: number; readonly perDay: number }>
  readonly maxCommands: number | undefined
  readonly publicPrefix: string | undefined
  readonly messagesPrefix: string | undefined
  readonly expectations: Partial<Expectations> | undefined
}

/** The `/*replayPath="…"*\/` that fast-check appends to a printed command sequence. */
export const replayPathOf = (commands: string): string | undefined => /\/\*replayPath="([^"]*)"\*\//.exec(commands)?.[1]

const FLAGS: ReadonlyArray<readonly [keyof Expectations, string]> = [
  ["banThreshold", "--ban-threshold"],
  ["banSeconds", "--ban-seconds"],
  ["banGraceMs", "--ban-grace-ms"],
  ["failedAuthPerMinute", "--failed-auth-per-minute"],
  ["revocationBoundMs", "--revocation-bound-ms"]
]

/** `petstore-conformance …` replaying the run from its seed, and the failing sequence when a path is given. */
export const replayCommand = (
  source: ReplaySource,
  seed: number,
  counterexample?: { readonly path: string; readonly replayPath: string | undefined }
): string => {
  const parts = ["petstore-conformance"]
  for (const url of source.baseUrls) parts.push("--base-url", url)
  if (source.admin) parts.push(`--admin-token "$ADMIN_TOKEN"`)
  if (source.webhookReceiver === true) parts.push("--webhook-receiver")
  source.keyLimits.forEach((l, i) => parts.push(`--key "$KEY_${i + 1}:${l.perMinute}/${l.perDay}"`))
  if (source.publicPrefix !== undefined) parts.push("--prefix", source.publicPrefix)
  if (source.messagesPrefix !== undefined) parts.push("--messages-prefix", source.messagesPrefix)
  if (source.maxCommands !== undefined) parts.push("--max-commands", String(source.maxCommands))
  for (const [name, flag] of FLAGS) {
    const value = source.expectations?.[name]
    if (value !== undefined) parts.push(flag, String(value))
  }
  parts.push("--seed", String(seed))
  if (counterexample !== undefined) {
    parts.push("--path", counterexample.path)
    if (counterexample.replayPath !== undefined) parts.push("--replay-path", `'${counterexample.replayPath}'`)
  }
  return parts.join(" ")
}
