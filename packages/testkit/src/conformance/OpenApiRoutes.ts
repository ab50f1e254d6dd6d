/**
 * The document's routes: each path template compiled to a pattern with its operations, under the
 * base paths its server URLs carry, and what a request's method and path are among them.
 *
 * @since 1.0.0
 */
import { isObject, type JsonObject } from "./OpenApiJson.js"

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

/** What a request path and method are in the document. @category models */
export type RouteMatch =
  | { readonly _tag: "Operation"; readonly operationId: string; readonly template: string; readonly method: string }
  | { readonly _tag: "MethodNotAllowed"; readonly template: string; readonly allowed: ReadonlyArray<string> }
  | { readonly _tag: "UnknownRoute" }

/** A path template of the document with its operations, by upper-case method. */
export interface CompiledPath {
  readonly template: string
  readonly pattern: RegExp
  readonly operations: ReadonlyMap<string, JsonObject>
}

export interface Routes {
  readonly findPath: (path: string) => CompiledPath | undefined
  readonly match: (method: string, path: string) => RouteMatch
}

const compilePath = (template: string, item: unknown): CompiledPath => {
  const operations = new Map<string, JsonObject>()
  if (isObject(item)) {
    for (const m of METHODS) {
      const op = item[m]
      if (isObject(op)) operations.set(m.toUpperCase(), op)
    }
  }
  const source = template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]+")
  return { template, pattern: new RegExp(`^${source}$`), operations }
}

/** Server URLs may carry a base path; the document's paths are relative to it. */
const serverBasePaths = (document: JsonObject, warnings: Array<string>): Set<string> => {
  const basePaths = new Set<string>([""])
  if (Array.isArray(document.servers)) {
    for (const s of document.servers) {
      if (!isObject(s) || typeof s.url !== "string") continue
      try {
        const p = new URL(s.url, "http://placeholder").pathname.replace(/\/+$/, "")
        basePaths.add(p)
      } catch {
        warnings.push(`server URL ${s.url} is not a URL`)
      }
    }
  }
  return basePaths
}

/** Paths that all repeat a server URL's base path are matched as absolute (with a warning). */
const dropDoubledBases = (basePaths: Set<string>, paths: ReadonlyArray<CompiledPath>, warnings: Array<string>): void => {
  for (const base of [...basePaths]) {
    if (base === "") continue
    const doubled = paths.filter((p) => p.template.startsWith(base + "/"))
    if (doubled.length > 0 && doubled.length === paths.length) {
      warnings.push(
        `every path starts with ${base}, which the server URLs already end with: per OpenAPI a client would call ${base}${
          doubled[0]!.template
        }; the checker matches the paths as absolute`
      )
      basePaths.delete(base)
    }
  }
}

/** The routes of `document` (whose `paths` is an object); problems of the document go to `warnings`. */
export const compileRoutes = (document: JsonObject & { readonly paths: JsonObject }, warnings: Array<string>): Routes => {
  const basePaths = serverBasePaths(document, warnings)
  const paths = Object.entries(document.paths).map(([template, item]) => compilePath(template, item))
  dropDoubledBases(basePaths, paths, warnings)

  const findPath = (path: string): CompiledPath | undefined => {
    for (const base of basePaths) {
      if (base !== "" && !path.startsWith(base + "/")) continue
      const rest = path.slice(base.length)
      const found = paths.find((p) => p.pattern.test(rest))
      if (found !== undefined) return found
    }
    return undefined
  }

  const match = (method: string, path: string): RouteMatch => {
    const found = findPath(path.split("?")[0]!)
    if (found === undefined) return { _tag: "UnknownRoute" }
    const op = found.operations.get(method.toUpperCase())
    if (op === undefined) return { _tag: "MethodNotAllowed", template: found.template, allowed: [...found.operations.keys()] }
    const operationId = typeof op.operationId === "string" ? op.operationId : `${method.toUpperCase()} ${found.template}`
    return { _tag: "Operation", operationId, template: found.template, method: method.toUpperCase() }
  }

  return { findPath, match }
}
