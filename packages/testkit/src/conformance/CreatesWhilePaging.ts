/**
 * Creates running while a listing is paged: one key creates pets one after another while the
 * checker's key pages through the whole listing at the same time. Under any interleaving no pet is
 * repeated or out of order across pages, none that existed before the paging began is skipped, and
 * every pet whose 201 came back before the last page was asked for is on a page.
 */

import * as fc from "fast-check"
import * as Valid from "../arbitraries/Valid.js"
import { now } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { KeyModel, PetRecord } from "./ModelRecords.js"
import { checkPage } from "./PageCheck.js"
import type { Session } from "./Session.js"
import { expectStatus, fail } from "./Violation.js"

/** What one run of the command sends. @category models */
export interface CreatesWhilePagingPlan {
  /** The page size while the server holds few pets (then larger, for about 20 pages). */
  readonly limit: number
  readonly pets: ReadonlyArray<{ readonly name: string; readonly categoryId: number; readonly status?: string }>
}

/** @category arbitraries */
export const createsWhilePagingPlan: fc.Arbitrary<CreatesWhilePagingPlan> = fc.record({
  limit: fc.integer({ min: 1, max: 5 }),
  pets: fc.array(Valid.newPet, { minLength: 1, maxLength: 6 })
})

/** Runs the two streams at once and checks the listing against the creates. @category checks */
export const createsWhilePaging = async (model: Model, session: Session, writer: KeyModel, plan: CreatesWhilePagingPlan): Promise<void> => {
  const reader = session.readerKey()
  // Two accounts, so each stream's rate-limit answers are checked in their own order.
  if (reader === undefined || reader.account === writer.account) return
  const created: Array<{ readonly pet: PetRecord; readonly receivedAt: number }> = []
  const listed = new Set<number>()
  let lastPageSentAt = 0

  const creates = async () => {
    for (const body of plan.pets) {
      const path = `${session.publicPrefix}/pets`
      const x = await session.keyed("create a pet while a listing is paged", writer, {
        method: "POST",
        path,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body)
      })
      if (x === undefined) return
      const what = `create a pet while a listing is paged: POST ${path} → ${x.response.status}`
      expectStatus(what, x.response.status, [201], x.response.text)
      created.push({ pet: session.json(x, what) as PetRecord, receivedAt: x.receivedAt })
    }
  }

  // About 20 pages whatever the server holds: enough to overlap the creates, few enough to stay cheap.
  const limit = Math.min(100, Math.max(plan.limit, Math.ceil(model.pets.size / 20)))
  const pages = async () => {
    let path: string | undefined = `${session.publicPrefix}/pets?limit=${limit}`
    let afterId = 0
    while (path !== undefined) {
      lastPageSentAt = now()
      const x = await session.keyed("page through the listing while pets are created", reader, { method: "GET", path })
      if (x === undefined) return false
      // Pets created meanwhile are not in the model yet, so checkPage does not require them.
      const page = checkPage(model, session, { limit, status: undefined, afterId }, x, `paging while pets are created: GET ${path} → ${x.response.status}`)
      for (const id of page.ids) listed.add(id)
      afterId = page.lastId
      path = page.next
    }
    return true
  }

  const [, complete] = await Promise.all([creates(), pages()])
  for (const { pet } of created) {
    model.observePet(pet, "create a pet while a listing is paged")
    model.acknowledged.set(pet.id, pet)
  }
  if (!complete) return
  const missing = created.filter((c) => c.receivedAt < lastPageSentAt && !listed.has(c.pet.id))
  if (missing.length > 0) {
    fail(
      `paging while pets are created (limit ${limit}): pets ${missing.map((c) => c.pet.id).join(", ")} were acknowledged before the last page was asked for, but no page listed them`
    )
  }
}
