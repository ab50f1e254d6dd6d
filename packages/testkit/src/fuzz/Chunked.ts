/**
 * Chunked transfer coding of a body, well-formed (any chunk sizes, upper-case and zero-padded hex,
 * extensions, trailers) and malformed (sizes that are not hex, overflow, a missing CRLF, data
 * longer than its size). Every malformed form is detectable from the bytes sent, so a server never
 * has to wait for more to refuse it.
 */

import * as fc from "fast-check"
import type { Framing } from "./RawRequest.js"

/** How to encode: chunk sizes, hex style, extensions, trailers and at most one defect. @category models */
export interface ChunkedStyle {
  readonly sizes: ReadonlyArray<number>
  readonly upperCase: boolean
  readonly zeroPad: number
  readonly extension: string
  readonly trailers: ReadonlyArray<string>
  readonly defect: ChunkDefect | undefined
}

/** @category models */
export type ChunkDefect =
  | "size not hex"
  | "size overflow"
  | "negative size"
  | "empty size"
  | "space after size"
  | "no CRLF after data"
  | "data longer than size"
  | "bare LF"
  | "bad trailer"

/**
 * Which defects break the framing for sure, and which a parser may accept or refuse (bare LF, and
 * whitespace before an extension, which RFC 9110 calls "bad" but acceptable).
 */
export const framing = (style: ChunkedStyle): Framing =>
  style.defect === undefined
    ? style.extension.startsWith(" ") ? "doubtful" : "valid"
    : style.defect === "bare LF" || style.defect === "space after size" ? "doubtful" : "broken"

/** @category arbitraries */
export const chunkedStyle: fc.Arbitrary<ChunkedStyle> = fc.record({
  sizes: fc.array(fc.integer({ min: 1, max: 4096 }), { minLength: 1, maxLength: 8 }),
  upperCase: fc.boolean(),
  zeroPad: fc.constantFrom(0, 0, 0, 3, 8),
  extension: fc.constantFrom("", "", "", ";a=b", ";a", ";a=\"q d\"", " ;a=b"),
  trailers: fc.constantFrom([], [], ["X-Trailer: 1"], ["X-A: 1", "X-B: 2"]),
  defect: fc.option(
    fc.constantFrom<ChunkDefect>(
      "size not hex", "size overflow", "negative size", "empty size", "space after size", "no CRLF after data",
      "data longer than size", "bare LF", "bad trailer"
    ),
    { nil: undefined, freq: 3 }
  )
})

const hex = (n: number, style: ChunkedStyle) => {
  const h = n.toString(16).padStart(style.zeroPad, "0")
  return style.upperCase ? h.toUpperCase() : h
}

/** The body in chunks as `style` says (sizes cycle until the body is used up). @category constructors */
export const encode = (body: Uint8Array, style: ChunkedStyle): Uint8Array => {
  const parts: Array<Uint8Array> = []
  const eol = style.defect === "bare LF" ? "\n" : "\r\n"
  const text = (s: string) => parts.push(Buffer.from(s, "latin1"))
  let offset = 0
  let i = 0
  while (offset < body.length) {
    const size = Math.min(style.sizes[i % style.sizes.length]!, body.length - offset)
    const first = i === 0
    const sizeText = !first || style.defect === undefined
      ? hex(size, style)
      : style.defect === "size not hex"
      ? `${hex(size, style)}g`
      : style.defect === "size overflow"
      ? `1${"0".repeat(17)}${hex(size, style)}`
      : style.defect === "negative size"
      ? `-${hex(size, style)}`
      : style.defect === "empty size"
      ? ""
      : style.defect === "space after size"
      ? `${hex(size, style)} `
      : hex(size, style)
    text(`${sizeText}${style.extension}${eol}`)
    if (first && style.defect === "data longer than size") {
      parts.push(body.subarray(offset, offset + size))
      text(`XX${eol}`)
    } else {
      parts.push(body.subarray(offset, offset + size))
      text(first && style.defect === "no CRLF after data" ? "X" : eol)
    }
    offset += size
    i++
  }
  text(`0${eol}`)
  for (const t of style.trailers) text(`${t}${eol}`)
  if (style.defect === "bad trailer") text(`Bad Trailer${eol}`)
  text(eol)
  return Buffer.concat(parts)
}

/** A short description of the style, for reports. @category formatting */
export const describe = (style: ChunkedStyle): string =>
  `${style.sizes.length} chunk size(s)${style.upperCase ? ", upper-case hex" : ""}${style.zeroPad > 0 ? ", zero-padded" : ""}` +
  `${style.extension === "" ? "" : `, extension ${JSON.stringify(style.extension)}`}${style.trailers.length > 0 ? ", trailers" : ""}` +
  `${style.defect === undefined ? "" : `, defect: ${style.defect}`}`
