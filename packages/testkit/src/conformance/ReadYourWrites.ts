/**
 * Read-your-writes: after each acknowledged create, the checker reads the pet back by id and finds
 * it in its status filter's listing, and reads an accepted message back by id with its account's
 * key. Each read is a real request that the model admits or refuses like any other; a read the
 * limits refuse checks nothing, a read that misses is a failure of the sequence that led to it.
 */
import { now } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { KeyModel, MessageModel, PetRecord } from "./ModelRecords.js"
import { checkPage } from "./PageCheck.js"
import type { Session } from "./Session.js"
import { expectStatus, fail } from "./Violation.js"

/**
 * The page size of the read-your-writes listings: small, so the standing point moves often and
 * each check reads few pets.
 */
const TAIL_PAGE = 10

/** Reads an acknowledged pet back by id, then finds it in its status filter's listing. */
export const readPetBack = async (model: Model, session: Session, pet: PetRecord): Promise<void> => {
  const key = session.readerKey()
  if (key === undefined) return
  const path = `${session.publicPrefix}/pets/${pet.id}`
  const x = await session.keyed("read-your-writes: read the pet just created", key, { method: "GET", path })
  if (x === undefined) return
  const what = `read-your-writes: GET ${path} → ${x.response.status}, right after the 201 that created pet ${pet.id}`
  expectStatus(what, x.response.status, [200], x.response.text)
  const got = session.json(x, what) as PetRecord
  if (got.id !== pet.id || got.name !== pet.name || got.categoryId !== pet.categoryId || got.status !== pet.status) {
    fail(`${what}: got ${x.response.text.slice(0, 200)}, but the 201 said ${JSON.stringify(pet)}`)
  }
  await findListed(model, session, pet, key)
}

/**
 * Reads the listing of the pet's status from where the checker's last read of it stood (limit 10)
 * until the last page; the pet must be on it. Full pages move the standing point forward.
 */
const findListed = async (model: Model, session: Session, pet: PetRecord, key: KeyModel): Promise<void> => {
  const tail = model.listingTails.get(pet.status) ?? { afterId: 0, next: undefined }
  let path = tail.next ?? `${session.publicPrefix}/pets?limit=${TAIL_PAGE}&status=${encodeURIComponent(pet.status)}`
  let afterId = tail.afterId
  for (let pages = 0; pages < 10_000; pages++) {
    const x = await session.keyed("read-your-writes: list the pet's status", key, { method: "GET", path })
    if (x === undefined) return
    const what = `read-your-writes: GET ${path} → ${x.response.status}`
    const body = x.response.status === 200 ? session.json(x, what) : undefined
    if (Array.isArray(body) && pet.id > afterId) {
      const ids = (body as ReadonlyArray<PetRecord | null>).map((p) => p?.id)
      const link = x.response.headers["link"]
      if (!ids.includes(pet.id) && (link === undefined || ids.some((id) => id !== undefined && id > pet.id))) {
        fail(`${what}: pet ${pet.id} (status ${pet.status}), acknowledged with 201, is not listed under status=${pet.status} (page ids ${ids.slice(0, 10).join(",")}${ids.length > 10 ? ",…" : ""})`)
      }
    }
    const page = checkPage(model, session, { limit: TAIL_PAGE, status: pet.status, afterId }, x, what)
    if (page.next === undefined) return
    afterId = page.lastId
    path = page.next
    model.listingTails.set(pet.status, { afterId, next: path })
  }
}

/** Reads an accepted message back by id with a key of its account: it is there, with its text. */
export const readMessageBack = async (model: Model, session: Session, message: MessageModel): Promise<void> => {
  const at = now()
  const key = model.liveKeys(at).find((k) => k.account === message.account && !model.toldToWait(k, at))
  if (key === undefined) return
  const path = `${session.messagesPrefix}/messages/${message.id}`
  const x = await session.keyed("read-your-writes: read the message just accepted", key, { method: "GET", path })
  if (x === undefined) return
  const what = `read-your-writes: GET ${path} → ${x.response.status}, right after the 202 that accepted message ${message.id}`
  expectStatus(what, x.response.status, [200], x.response.text)
  const got = session.json(x, what) as { id?: unknown; message?: unknown; status?: unknown }
  if (got.id !== message.id || got.message !== message.text) fail(`${what}: got ${x.response.text.slice(0, 200)}`)
  if (typeof got.status === "string") message.lastStatus = got.status
}
