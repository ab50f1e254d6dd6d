/**
 * What the testkit's commands share: `--name value` options parsed with node's `parseArgs` (a
 * leading `--`, as `pnpm run script -- …` passes it, is dropped), `--help` and usage errors
 * answered the same way, and integer options checked with one message.
 */
import { parseArgs } from "node:util"

/**
 * The values of the options `names` (each `--name value`), or the exit code when the command is
 * done already: 0 after `--help` (usage on stdout), 2 after a usage error (it and the usage on stderr).
 */
export const parse = <K extends string>(
  names: ReadonlyArray<K>,
  usage: string,
  argv: ReadonlyArray<string> = process.argv.slice(2)
): Partial<Record<K, string>> | number => {
  try {
    const { values } = parseArgs({
      args: argv.filter((a, i) => !(i === 0 && a === "--")),
      options: {
        ...Object.fromEntries(names.map((name) => [name, { type: "string" as const }])),
        help: { type: "boolean", short: "h" }
      }
    })
    if (values.help === true) {
      process.stdout.write(usage)
      return 0
    }
    return values as Partial<Record<K, string>>
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${usage}`)
    return 2
  }
}

/** The value of integer option `--name`, if given; throws a usage error otherwise. */
export const integer = (name: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined
  if (!/^-?\d+$/.test(raw)) throw new Error(`--${name} must be an integer, got ${JSON.stringify(raw)}`)
  return Number(raw)
}
