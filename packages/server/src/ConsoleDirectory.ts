/**
 * Where the server finds the operator console's build: the folder `console` of this package,
 * which the repository's build fills from `packages/console`'s (`scripts/console-assets.mjs`) and
 * the published package carries. Read once, when the application starts.
 *
 * @since 2.0.0
 */
import { fileURLToPath } from "node:url"

/** The console's build folder (from `dist/`, `dist-bundle/` or `src/` alike: one level under the package). */
export const path: string = fileURLToPath(new URL("../console/", import.meta.url))
