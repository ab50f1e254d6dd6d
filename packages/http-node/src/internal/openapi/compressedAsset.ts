/**
 * A static file served the way a CDN would: compressed once (brotli and gzip, beside the bytes as
 * they are), each representation with its own strong `ETag`, chosen by `Accept-Encoding`, answered
 * 304 when the client already has it, and handed to the host as shared bytes (`AppResponse.bytes`)
 * that it writes as the client reads. Nothing is compressed or copied per request.
 *
 * @internal
 */
import { createHash } from "node:crypto"
import { promisify } from "node:util"
import * as Zlib from "node:zlib"
import type { AppRequest } from "../../AppRequest.js"
import type { AppResponse, ResponseHeaders } from "../../AppResponse.js"

/** A content coding this server sends, in order of preference when the client weighs them alike. */
export type Encoding = "br" | "gzip" | "identity"

/** One representation of the file: its bytes in one coding, and the tag naming exactly those bytes. */
export interface Representation {
  readonly encoding: Encoding
  readonly bytes: Buffer
  readonly etag: string
}

export interface CompressedAsset {
  readonly br: Representation
  readonly gzip: Representation
  readonly identity: Representation
}

const brotli = promisify(Zlib.brotliCompress)
const gzip = promisify(Zlib.gzip)

/**
 * Brotli quality 9, not 11: 11 saves little on the reference script for many times the CPU on the
 * first request (docs/performance.md).
 */
const BROTLI_OPTIONS = (size: number): Zlib.BrotliOptions => ({
  params: {
    [Zlib.constants.BROTLI_PARAM_QUALITY]: 9,
    [Zlib.constants.BROTLI_PARAM_MODE]: Zlib.constants.BROTLI_MODE_TEXT,
    [Zlib.constants.BROTLI_PARAM_SIZE_HINT]: size
  }
})

/** A strong tag of `bytes` (the representation's own, so instances with another zlib never share a tag for other bytes). */
const tagOf = (bytes: Buffer): string => `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`

const representation = (encoding: Encoding, bytes: Buffer): Representation => ({ encoding, bytes, etag: tagOf(bytes) })

/** Compresses `bytes` both ways, off the event loop (zlib's thread pool). */
export const compress = async (bytes: Buffer): Promise<CompressedAsset> => {
  const [br, gz] = await Promise.all([brotli(bytes, BROTLI_OPTIONS(bytes.length)), gzip(bytes, { level: 9 })])
  return { br: representation("br", br), gzip: representation("gzip", gz), identity: representation("identity", bytes) }
}

/** The representations of a file compressed at build (its `.br` and `.gz` beside it): nothing to compress. */
export const precompressed = (bytes: Buffer, br: Buffer, gz: Buffer): CompressedAsset => ({
  br: representation("br", br),
  gzip: representation("gzip", gz),
  identity: representation("identity", bytes)
})

/**
 * The weight the client's `Accept-Encoding` gives `coding` (RFC 9110 §12.5.3): its own `q`, else
 * that of `*`, else 0 (an absent header accepts only the identity, which is always sent when
 * nothing else is acceptable).
 */
const weightOf = (acceptEncoding: string, coding: string): number => {
  let star = 0
  for (const part of acceptEncoding.split(",")) {
    const [name = "", ...params] = part.split(";")
    const token = name.trim().toLowerCase()
    if (token !== coding && token !== "*") continue
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)).find((m) => m !== null)
    const weight = q === undefined ? 1 : Number(q![1])
    if (token === coding) return Number.isNaN(weight) ? 0 : weight
    star = Number.isNaN(weight) ? 0 : weight
  }
  return star
}

/** The representation for a request with `acceptEncoding`: brotli, then gzip, by the client's weights; else the bytes as they are. */
export const choose = (asset: CompressedAsset, acceptEncoding: string | undefined): Representation => {
  if (acceptEncoding === undefined) return asset.identity
  const br = weightOf(acceptEncoding, "br")
  const gz = weightOf(acceptEncoding, "gzip")
  if (br > 0 && br >= gz) return asset.br
  return gz > 0 ? asset.gzip : asset.identity
}

/** Whether `ifNoneMatch` names `etag` (weak comparison, as RFC 9110 §13.1.2 asks of this header). */
const matches = (ifNoneMatch: string, etag: string): boolean =>
  ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)

/**
 * The answer to `request` for `asset`: the chosen representation (200), or 304 when
 * `If-None-Match` names it. `headers` are the file's own (`Content-Type`, `Cache-Control`).
 */
export const answer = (asset: CompressedAsset, request: AppRequest, headers: ResponseHeaders): AppResponse => {
  const chosen = choose(asset, request.header("accept-encoding"))
  const common: ResponseHeaders = { ...headers, Vary: "Accept-Encoding", ETag: chosen.etag }
  if (chosen.encoding !== "identity") common["Content-Encoding"] = chosen.encoding
  const ifNoneMatch = request.header("if-none-match")
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, chosen.etag)) return { status: 304, headers: common, body: undefined }
  common["Content-Length"] = String(chosen.bytes.length)
  return { status: 200, headers: common, body: undefined, bytes: chosen.bytes }
}
