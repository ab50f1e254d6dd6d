/**
 * The checks every page of `GET /pets` must pass, whichever command asked for it: a plain array,
 * ascending ids after where the listing stands, the status filter kept, `Link rel="next"` exactly
 * when more exist (path-absolute, keeping `limit` and `status`), and no known pet skipped.
 */
import type { HttpExchange } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { ChainModel, PetRecord } from "./ModelRecords.js"
import type { Session } from "./Session.js"
import { expectStatus, fail } from "./Violation.js"

/** The target of the page's `Link rel="next"`, if it has one. */
export const nextLink = (x: HttpExchange, what: string): string | undefined => {
  const link = x.response.headers["link"]
  if (link === undefined) return undefined
  const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(link)
  return m === null ? fail(`${what}: a Link header without rel="next": ${link}`) : m[1]!
}

/** Checks one page of a listing that starts after `afterId`, and returns the next link. */
export const checkPage = (
  model: Model,
  session: Session,
  chain: Omit<ChainModel, "key" | "pages" | "next">,
  x: HttpExchange,
  what: string
): { readonly next: string | undefined; readonly lastId: number; readonly ids: ReadonlyArray<number> } => {
  expectStatus(what, x.response.status, [200], x.response.text)
  const pets = session.json(x, what) as ReadonlyArray<PetRecord>
  if (!Array.isArray(pets)) return fail(`${what}: the body is not an array`)
  const next = nextLink(x, what)
  if (next !== undefined) {
    if (!next.startsWith("/")) fail(`${what}: the next link ${next} is not a path-absolute reference`)
    const q = new URL(next, "http://x").searchParams
    if (q.get("limit") !== String(chain.limit)) fail(`${what}: the next link ${next} does not keep limit=${chain.limit}`)
    if ((q.get("status") ?? undefined) !== chain.status) fail(`${what}: the next link ${next} does not keep the status filter ${chain.status}`)
    if (q.get("cursor") === null) fail(`${what}: the next link ${next} has no cursor`)
  }
  if (pets.length > chain.limit) fail(`${what}: ${pets.length} pets, more than limit=${chain.limit}`)
  if (next !== undefined && pets.length !== chain.limit) fail(`${what}: a page with a next link must be full: ${pets.length} of ${chain.limit}`)
  let previous = chain.afterId
  for (const pet of pets) {
    if (!(pet.id > previous)) fail(`${what}: ids are not ascending after ${chain.afterId}: ${pets.map((p) => p.id).join(",")}`)
    previous = pet.id
    if (chain.status !== undefined && pet.status !== chain.status) fail(`${what}: pet ${pet.id} has status ${pet.status}, filter ${chain.status}`)
    model.observePet(pet, what)
  }
  const upTo = next === undefined ? Number.MAX_SAFE_INTEGER : previous
  const ids = new Set(pets.map((p) => p.id))
  const missing = model.knownPets(chain.afterId, upTo, chain.status).filter((p) => !ids.has(p.id))
  if (missing.length > 0) {
    fail(`${what}: pets ${missing.slice(0, 5).map((p) => p.id).join(", ")} exist${chain.status === undefined ? "" : ` with status ${chain.status}`} but were skipped (page after ${chain.afterId}, limit ${chain.limit}, ${next === undefined ? "no next link" : "next link"})`)
  }
  return { next, lastId: previous, ids: pets.map((p) => p.id) }
}
