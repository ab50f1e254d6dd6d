// What every capacity script shares: its options (`--name value`) and its log lines on stderr.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The repository's root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url))

/** The value after `--name` in the script's arguments, else `fallback`. */
export { option } from "../lib/options.mjs"

/** The command that reproduces this run (its arguments without `--no-write`). */
export const command = (base) => {
  const rest = process.argv.slice(2).filter((a) => a !== "--no-write")
  return rest.length === 0 ? base : `${base} ${rest.join(" ")}`
}

/** Log lines `[name hh:mm:ss] …` on stderr. */
export const logger = (name) => (...a) => console.error(`[${name} ${new Date().toISOString().slice(11, 19)}]`, ...a)

/**
 * With `--help`, when `url` is the script that was run: prints its header (the comment lines it
 * opens with: what it measures and its options) and exits, measuring nothing.
 */
export const helpAndExit = (url) => {
  if (!process.argv.slice(2).includes("--help") || process.argv[1] !== fileURLToPath(url)) return
  const lines = readFileSync(fileURLToPath(url), "utf8").split("\n").filter((l) => !l.startsWith("#!"))
  const header = lines.slice(0, lines.findIndex((l) => !l.startsWith("//")))
  console.log(header.map((l) => l.replace(/^\/\/ ?/, "")).join("\n"))
  process.exit(0)
}
