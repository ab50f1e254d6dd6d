/**
 * The server's version, as its package says (`package.json` sits beside `dist` and `src` in the
 * repository and in the published package alike).
 */
import { createRequire } from "node:module"

/** The `version` of `@petstore/server`'s package.json. */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { readonly version: string }).version
