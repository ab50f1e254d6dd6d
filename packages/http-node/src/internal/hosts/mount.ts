/**
 * Where a host mounted the application: the part of the URL before the application's own paths.
 *
 * @internal
 */
import { pathOf } from "../urlPath.js"

/** A mount path as given ("/petstore", "/petstore/"), as the application uses it ("/petstore", or "" at the root). */
export const normalizeBasePath = (basePath: string | undefined): string => {
  if (basePath === undefined || basePath === "" || basePath === "/") return ""
  if (!basePath.startsWith("/") || /[?#]/.test(basePath)) {
    throw new Error(`basePath must be a path starting with "/" (got ${JSON.stringify(basePath)})`)
  }
  return basePath.endsWith("/") ? basePath.slice(0, -1) : basePath
}

/**
 * The path and query the application routes on: `url` (as the client sent it, an absolute URL
 * or a path) without `basePath`; `undefined` when `url` is not under `basePath`. At the root, a
 * target that is neither (the asterisk form `OPTIONS *`, the server as a whole) is the
 * application's as it is: it goes through authentication and the rate limiter like any request,
 * and names no route (404).
 */
export const routedUrl = (url: string, basePath: string): string | undefined => {
  if (url.charCodeAt(0) !== 47 /* "/" */) {
    try {
      const parsed = new URL(url)
      url = parsed.pathname + parsed.search
    } catch {
      return basePath === "" ? url : undefined
    }
  }
  if (basePath === "") return url
  if (!url.startsWith(basePath)) return undefined
  const rest = url.slice(basePath.length)
  if (rest === "") return "/"
  const next = rest.charCodeAt(0)
  return next === 47 /* "/" */ ? rest : next === 63 /* "?" */ ? `/${rest}` : undefined
}

/** Whether `url` is one of `paths` (exact paths, and prefixes ending in "/"). */
export const owns = (paths: ReadonlyArray<string>, url: string): boolean => {
  const path = pathOf(url)
  for (const p of paths) {
    if (p.endsWith("/") ? path.startsWith(p) : path === p) return true
  }
  return false
}
