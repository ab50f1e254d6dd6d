/**
 * better-sqlite3 is a native addon, built for one Node ABI (`NODE_MODULE_VERSION`). Loaded by another
 * Node line it fails with Node's multi-line message; this turns that failure into one line: which Node
 * the module was built for, which is running, and the command that rebuilds it for the running one.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

/** Node's ABI versions and their lines (https://github.com/nodejs/node/blob/main/doc/abi_version_registry.json). */
const LINES: Readonly<Record<string, string>> = {
  "108": "18",
  "115": "20",
  "120": "21",
  "127": "22",
  "131": "23",
  "137": "24",
  "141": "25",
  "147": "26"
}

const lineOf = (abi: string): string => LINES[abi] === undefined ? `NODE_MODULE_VERSION ${abi}` : `Node ${LINES[abi]} (NODE_MODULE_VERSION ${abi})`

/** The Node that runs: its version, its ABI, and the folder whose `include/node` holds its headers, if any. */
export interface RunningNode {
  readonly version: string
  readonly abi: string
  readonly headers: string | undefined
}

/** This process's Node. */
export const running = (): RunningNode => {
  let prefix: string | undefined
  try {
    prefix = Path.dirname(Path.dirname(Fs.realpathSync(process.execPath)))
  } catch {
    prefix = undefined
  }
  return {
    version: process.version,
    abi: process.versions.modules,
    headers: prefix !== undefined && Fs.existsSync(Path.join(prefix, "include", "node", "node_version.h")) ? prefix : undefined
  }
}

/**
 * One line for a native module built for another Node than the one running (`ERR_DLOPEN_FAILED` naming
 * two `NODE_MODULE_VERSION`s), or undefined for any other error.
 */
export const wrongNativeBuild = (error: unknown, node: RunningNode = running()): string | undefined => {
  const message = (error as { message?: unknown } | null)?.message
  if (typeof message !== "string") return undefined
  const match = /compiled against a different Node\.js version using\s+NODE_MODULE_VERSION (\d+)\.\s+This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/
    .exec(message)
  if (match === null) return undefined
  const [, built, required] = match
  const nodedir = node.headers === undefined ? "" : `npm_config_nodedir=${node.headers} `
  return `better-sqlite3 was built for ${lineOf(built!)}, but this is Node ${node.version.replace(/^v/, "")} (NODE_MODULE_VERSION ${required}): ` +
    `rebuild it for this Node with \`${nodedir}npm_config_build_from_source=true pnpm rebuild better-sqlite3\` (npm: \`npm rebuild better-sqlite3\`)`
}
