/**
 * The inventory: before the first sequence the checker reads which pets the server already holds;
 * after the last it pages through the whole listing and each status filter (limit 100): every pet
 * the server acknowledged with 201 is there exactly once, under its status, nothing else is, and
 * the ids ascend across pages; and each `Idempotency-Key` the run created under names exactly one pet.
 */
import type { HttpExchange } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { PetRecord } from "./ModelRecords.js"
import { nextLink } from "./PageCheck.js"
import type { Session } from "./Session.js"
import { fail } from "./Violation.js"

/** The inventory's page size: the largest the interface allows. */
const INVENTORY_PAGE = 100

/** The filters the inventory reads: the whole listing, then each status. */
export const INVENTORY_FILTERS: ReadonlyArray<string | undefined> = [undefined, "available", "pending", "sold"]

/** Why an inventory could not be taken (the limits refused the reader); a failure throws instead. */
export type NotTaken = string

/**
 * Pages through one listing with the reader's key; `onPage` sees each page's pets in turn. Returns
 * the reason when a page was refused by the limits (after waiting when told to, three times).
 */
const walk = async (
  session: Session,
  status: string | undefined,
  label: string,
  onPage: (pets: ReadonlyArray<PetRecord>, x: HttpExchange, what: string) => void
): Promise<NotTaken | undefined> => {
  let path: string | undefined = `${session.publicPrefix}/pets?limit=${INVENTORY_PAGE}${status === undefined ? "" : `&status=${status}`}`
  while (path !== undefined) {
    let x: HttpExchange | undefined
    for (let attempt = 0; attempt < 3 && x === undefined; attempt++) {
      const key = session.readerKey()
      if (key === undefined) return "no key could read the listing"
      x = await session.keyed(label, key, { method: "GET", path })
    }
    if (x === undefined) return `GET ${path} was refused by the limits three times`
    const what = `${label}: GET ${path} → ${x.response.status}`
    if (x.response.status !== 200) fail(`${what}: expected 200, got ${x.response.text.slice(0, 300)}`)
    const pets = session.json(x, what)
    if (!Array.isArray(pets)) return fail(`${what}: the body is not an array`)
    onPage(pets as ReadonlyArray<PetRecord>, x, what)
    path = nextLink(x, what)
  }
  return undefined
}

/** Records the pets the server holds before the run, so the inventory can tell them from new ones. */
export const recordPreexisting = async (model: Model, session: Session): Promise<NotTaken | undefined> =>
  walk(session, undefined, "the inventory before the run", (pets, _x, what) => {
    for (const pet of pets) {
      model.preexisting.add(pet.id)
      model.observePet(pet, what)
    }
  })

/** Takes the inventory after the run; a departure throws a ConformanceViolation that names it. */
export const takeInventory = async (model: Model, session: Session): Promise<NotTaken | undefined> => {
  // Pets per keyed name in the whole listing: exactly one for each key whose 201 was seen.
  const keyedSeen = new Map<string, number>()
  for (const status of INVENTORY_FILTERS) {
    const filter = status === undefined ? "the whole listing" : `status=${status}`
    const seen = new Set<number>()
    let last = 0
    let page = 0
    const notTaken = await walk(session, status, `the inventory after the run (${filter})`, (pets, _x, what) => {
      page++
      for (const pet of pets) {
        const where = `${what} (page ${page} of ${filter})`
        if (seen.has(pet.id)) fail(`${where}: pet ${pet.id} is listed twice`)
        if (pet.id < last) fail(`${where}: pet ${pet.id} comes after pet ${last}: the listing is not in id order`)
        const keyed = model.keyedPets.has(pet.name)
        if (keyed && status === undefined) {
          const listed = (keyedSeen.get(pet.name) ?? 0) + 1
          keyedSeen.set(pet.name, listed)
          if (listed > 1) fail(`${where}: ${listed} pets are named ${JSON.stringify(pet.name)}, created under one Idempotency-Key: exactly one was expected`)
          const id = model.keyedPets.get(pet.name)
          if (id !== undefined && id !== pet.id) fail(`${where}: the pet of its Idempotency-Key is ${pet.id}, but its 201 said ${id}`)
        }
        // A keyed create whose answer was never seen (refused retries) may have created its one pet.
        if (!model.acknowledged.has(pet.id) && !model.preexisting.has(pet.id) && !(keyed && model.keyedPets.get(pet.name) === undefined)) {
          fail(`${where}: pet ${pet.id} is listed, but the server never acknowledged creating it (no 201) and it was not there before the run`)
        }
        if (status !== undefined && pet.status !== status) fail(`${where}: pet ${pet.id} has status ${pet.status}`)
        const acknowledged = model.acknowledged.get(pet.id)
        if (acknowledged !== undefined && (acknowledged.name !== pet.name || acknowledged.categoryId !== pet.categoryId || acknowledged.status !== pet.status)) {
          fail(`${where}: pet ${pet.id} is ${JSON.stringify(pet)}, but the 201 said ${JSON.stringify(acknowledged)}`)
        }
        seen.add(pet.id)
        last = pet.id
      }
    })
    if (notTaken !== undefined) return notTaken
    if (status === undefined) {
      for (const [name, id] of model.keyedPets) {
        if (id !== undefined && keyedSeen.get(name) !== 1) fail(`the inventory after the run: no pet is named ${JSON.stringify(name)}, acknowledged as pet ${id} under its Idempotency-Key`)
      }
    }
    const missing = [...model.acknowledged.values()].filter((p) => (status === undefined || p.status === status) && !seen.has(p.id))
    if (missing.length > 0) {
      fail(
        `the inventory after the run (${filter}): ${missing.length} pet(s) acknowledged with 201 are not listed: ${
          missing.slice(0, 10).map((p) => p.id).join(", ")
        }${missing.length > 10 ? ", …" : ""} (${seen.size} listed, ${model.acknowledged.size} acknowledged in the run)`
      )
    }
  }
  return undefined
}
