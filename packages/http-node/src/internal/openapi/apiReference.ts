/**
 * The API reference page at `/docs`: Scalar's API reference (the bundle `effect` ships,
 * served by this server: no CDN, fonts or other origin), showing this server's OpenAPI document, with
 * "try it" sending requests to the server the page was loaded from.
 *
 * Everything is addressed relative to the page, so the same bytes work at `/docs` and under a host's
 * mount (`/petstore/docs`): the bundle at `docs?asset=…` (versioned, cached for a year), the document
 * at `v1/openapi.json`, "this server" at the page's folder.
 *
 * The bundle is megabytes and needs no key, so it is served as a static file should be: compressed
 * once, tagged, written as the client reads (`compressedAsset`), and limited per client address
 * (`assetsPerMinute`, then 429), so neither a flood of requests nor a client that does not read makes
 * the server work or hold much for it.
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AddressLimit } from "@petstore/core"
import type { AppRequest } from "../../AppRequest.js"
import type { AppResponse, ResponseHeaders } from "../../AppResponse.js"
import { JSON_CONTENT_TYPE } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import * as CompressedAsset from "./compressedAsset.js"
import * as ScalarBundle from "./scalarBundle.js"
import type { OpenApiDocument } from "./documentModel.js"

export interface ApiReference {
  /** The page (a few kilobytes, built at its first use, then kept). */
  readonly html: () => string
  /** The query of the bundle's URL (`/docs?asset=scalar-<effect version>.js`). */
  readonly bundleQuery: string
  /**
   * The answer to `GET /docs` (the request's URL with its query): the page, the bundle (or 304), 404
   * for a bundle of another version, 429 past the limit of asset requests from the client's address.
   */
  readonly answer: (request: AppRequest) => Effect.Effect<AppResponse>
}

/** Default of `assetsPerMinute`: a browser asks once a page load (then caches for a year); a team behind one address reloads freely. */
export const ASSETS_PER_MINUTE = 120

/** Client addresses whose asset requests are counted at most. */
const ADDRESSES_KEPT = 10_000

/** JSON inside a `<script>`: nothing in it can close the element or start markup. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)

/**
 * Scalar's settings: no default fonts (they come from fonts.scalar.com), no telemetry (it posts to
 * api.scalar.com), no toolbar (its "share" uploads the document); the key is kept only for the tab.
 */
const SCALAR_SETTINGS = {
  _integration: "html",
  withDefaultFonts: false,
  telemetry: false,
  showToolbar: "never",
  persistAuth: false,
  documentDownloadType: "json",
  hideClientButton: false,
  defaultOpenAllTags: true,
  showOperationId: true,
  authentication: { preferredSecurityScheme: "bearerAuth" }
} as const

/** The page. `servers` are the document's; the server the page was loaded from goes first. */
const page = (document: OpenApiDocument, bundleUrl: string, documentUrl: string): string => {
  const settings = { ...SCALAR_SETTINGS, servers: document.servers }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`${document.info.title} ${document.info.version}`)} · API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>This page needs JavaScript. The OpenAPI document it shows is at <a href="${escapeHtml(documentUrl)}">${
    escapeHtml(documentUrl)
  }</a>.</noscript>
<div id="reference"></div>
<script src="${escapeHtml(bundleUrl)}"></script>
<script>
(function () {
  var settings = ${scriptJson(settings)};
  // This server, wherever a host mounted it: the folder of this page, without its last slash.
  var here = new URL(".", location.href).href.replace(/\\/$/, "");
  settings.url = new URL(${scriptJson(documentUrl)}, location.href).href;
  settings.servers = [{ url: here, description: "This server" }].concat(
    settings.servers.filter(function (server) { return server.url !== here; })
  );
  Scalar.createApiReference("#reference", settings);
})();
</script>
</body>
</html>
`
}

/**
 * The browser enforces what the page may do: scripts, styles, images, fonts and requests from this
 * origin only (Scalar needs inline script and style, and WebAssembly).
 */
const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'self'"

const notFound = ErrorResponse.STATIC.referenceAssetNotFound
const limited = ErrorResponse.STATIC.referenceAssetsLimited

// The URL names the version, so its content never changes.
const BUNDLE_HEADERS: ResponseHeaders = {
  "Content-Type": "text/javascript; charset=utf-8",
  "Cache-Control": "public, max-age=31536000, immutable"
}

/**
 * The reference of `document`, served at `/docs` next to the document at `openApiPath`. Reads nothing
 * but `effect`'s version: the bundle is read on its first request, then kept.
 *
 * @category constructors
 */
export const make = (options: {
  /** The document (built at the page's first request, then kept). */
  readonly document: () => OpenApiDocument
  readonly openApiPath: `/${string}`
  /** The client's address a request comes from, for the limit of asset requests. */
  readonly clientAddress: (request: AppRequest) => string
  /** Requests for the page's files per minute from one address (default `ASSETS_PER_MINUTE`). */
  readonly assetsPerMinute?: number | undefined
  /** The clock the limit reads. */
  readonly clock: Clock.Clock
  /** Reads the bundle (default: from `effect`); tests pass one that fails. */
  readonly readBundle?: () => Promise<string>
}): ApiReference => {
  const readBundle = options.readBundle ?? ScalarBundle.read
  const bundleQuery = `asset=scalar-${ScalarBundle.version()}.js`
  let html: string | undefined
  const htmlOf = () => (html ??= page(options.document(), `docs?${bundleQuery}`, options.openApiPath.slice(1)))

  const limit = AddressLimit.make(options.assetsPerMinute ?? ASSETS_PER_MINUTE, ADDRESSES_KEPT)

  // Read and compressed on the first request, once; only the bytes are kept, not the text.
  let bundle: CompressedAsset.CompressedAsset | undefined
  let loading: Promise<CompressedAsset.CompressedAsset> | undefined
  const load = Effect.suspend(() => {
    if (bundle !== undefined) return Effect.succeed(bundle)
    loading ??= readBundle().then((text) => CompressedAsset.compress(Buffer.from(text))).then(
      (asset) => (bundle = asset),
      (error) => {
        loading = undefined // the next request tries again
        throw error
      }
    )
    return Effect.tryPromise(() => loading!)
  })

  const error = (result: ErrorResponse.ErrorResult, headers?: ResponseHeaders): AppResponse => ({
    status: result.status,
    headers: { "Content-Type": JSON_CONTENT_TYPE, ...headers },
    body: result.body
  })

  const answer = (request: AppRequest): Effect.Effect<AppResponse> => {
    const url = request.url
    const q = url.indexOf("?")
    const query = q === -1 ? "" : url.slice(q + 1)
    if (!query.startsWith("asset=")) {
      return Effect.succeed({
        status: 200,
        headers: {
          "Content-Type": "text/html; charset=utf-8",
          "Cache-Control": "no-cache",
          "Content-Security-Policy": CONTENT_SECURITY_POLICY
        },
        body: htmlOf()
      })
    }
    const retryAfter = limit.take(options.clientAddress(request), options.clock.currentTimeMillisUnsafe())
    if (retryAfter !== undefined) return Effect.succeed(error(limited, { "Retry-After": String(retryAfter) }))
    if (query !== bundleQuery) return Effect.succeed(error(notFound))
    return load.pipe(
      Effect.map((asset) => CompressedAsset.answer(asset, request, BUNDLE_HEADERS)),
      Effect.catch((cause) =>
        Effect.as(Effect.logError("the API reference's bundle could not be read", cause), error(ErrorResponse.STATIC.internal))
      )
    )
  }

  return { html: htmlOf, bundleQuery, answer }
}
