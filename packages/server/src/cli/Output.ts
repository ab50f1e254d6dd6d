/**
 * How the commands print: label/value lines, aligned tables, instants in ISO 8601. A key or a
 * signing secret is printed only by the command that creates it, last, with a reminder on stderr.
 */
import type { Accounts } from "@petstore/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

export const iso = (ms: number | null): string => (ms === null ? "-" : new Date(ms).toISOString())

export const printLines = (lines: ReadonlyArray<readonly [string, string]>) =>
  Console.log(lines.map(([l, v]) => `${l}: ${v}`).join("\n"))

/** Label/value lines, the key last so it stands out; the key is the only secret ever printed. */
export const printIssued = (lines: ReadonlyArray<readonly [string, string]>, key: Accounts.IssuedKey) =>
  Effect.andThen(
    Console.log([...lines, ["key id", key.id], ["key", Redacted.value(key.key)]].map(([l, v]) => `${l}: ${v}`).join("\n")),
    Console.error("Store the key now: it is shown only this once.")
  )

export const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n")
}
