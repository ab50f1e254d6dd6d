/** The `Link: <…>; rel="next"` header of a paged answer: the next page's cursor. */

/** The `cursor` of the `rel="next"` link in `header`, if any. */
export const nextCursor = (header: string | null): string | undefined => {
  if (header === null) return undefined
  for (const part of header.split(",")) {
    const match = /<([^>]*)>\s*;(.*)$/.exec(part.trim())
    if (match && /rel="?next"?/.test(match[2]!)) {
      return new URL(match[1]!, "http://host").searchParams.get("cursor") ?? undefined
    }
  }
  return undefined
}
