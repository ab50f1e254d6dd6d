/**
 * The console's pages and files: every page (`/console`, `/console/accounts`, …: any path under
 * `/console` but its files and its session) is the same HTML shell, which loads the console's
 * script and style and lets the script render the page from `location.pathname`; the files are
 * served at `/console/assets/<name>` as the API reference's bundle is (compressed once, chosen by
 * `Accept-Encoding`, a year's immutable caching, 304 on `If-None-Match`). The shell is never cached
 * and carries a strict Content-Security-Policy: scripts, styles and requests of this origin only,
 * no inline script or style, no framing.
 */
import type { AppRequest } from "../../AppRequest.js"
import { type AppResponse, JSON_CONTENT_TYPE, type ResponseHeaders } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import * as CompressedAsset from "../openapi/compressedAsset.js"
import type { ConsoleAssets } from "./assets.js"

/** The prefix of the console's files. */
export const ASSETS_PREFIX = "/console/assets/"

/** What the shell may load: this origin's scripts, styles, images and requests; nothing inline, no frame. */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

/** Headers of every answer of the console (pages, files, session). */
export const COMMON_HEADERS: ResponseHeaders = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer"
}

const SHELL_HEADERS: ResponseHeaders = {
  ...COMMON_HEADERS,
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Frame-Options": "DENY"
}

const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)

/** The shell, its files addressed under `basePath`. */
export const shell = (assets: ConsoleAssets, basePath: string): string => {
  const url = (name: string) => escapeHtml(`${basePath}${ASSETS_PREFIX}${name}`)
  const style = assets.style === undefined ? "" : `<link rel="stylesheet" href="${url(assets.style)}">\n`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store console</title>
<link rel="icon" href="data:,">
${style}<script type="module" src="${url(assets.script)}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The console needs JavaScript.</noscript>
</body>
</html>
`
}

const ASSET_CACHE = "public, max-age=31536000, immutable"

const errorResponse = (error: ErrorResponse.ErrorResult, route: string, headers?: ResponseHeaders): AppResponse => ({
  status: error.status,
  headers: { ...COMMON_HEADERS, "Content-Type": JSON_CONTENT_TYPE, "Cache-Control": "no-store", ...headers },
  body: error.body,
  route
})

const READS = "GET, HEAD"

/** The pages and files of `assets`: `answer` of a path under `/console` (not the session's). */
export const make = (assets: ConsoleAssets) => {
  // The shell at the root, made once; under a mount, made per request (a few hundred bytes).
  const atRoot = shell(assets, "")
  const assetHeaders = new Map([...assets.files].map(([name, file]) => [name, { ...COMMON_HEADERS, "Content-Type": file.contentType, "Cache-Control": ASSET_CACHE }]))
  return (request: AppRequest, path: string): AppResponse => {
    const isAsset = path.startsWith(ASSETS_PREFIX)
    const route = isAsset ? "GET /console/assets/{asset}" : "GET /console"
    if (request.method !== "GET" && request.method !== "HEAD") {
      return errorResponse(ErrorResponse.methodNotAllowed(request.method, READS), route, { Allow: READS })
    }
    if (!isAsset) {
      const basePath = request.basePath ?? ""
      return { status: 200, headers: { ...SHELL_HEADERS }, body: basePath === "" ? atRoot : shell(assets, basePath), route }
    }
    const name = path.slice(ASSETS_PREFIX.length)
    const file = assets.files.get(name)
    if (file === undefined) return errorResponse(ErrorResponse.STATIC.consoleAssetNotFound, route)
    const response = CompressedAsset.answer(file.asset, request, { ...assetHeaders.get(name)! })
    response.route = route
    return response
  }
}
