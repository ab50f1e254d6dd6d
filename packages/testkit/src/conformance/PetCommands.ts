/**
 * The commands on pets and listings: creates (valid, with ignored fields, invalid by each defect
 * class), reads by id, listings and their pages, invalid queries, forged cursors, and creates while
 * a listing is paged.
 */
import * as Invalid from "../arbitraries/Invalid.js"
import { codesForDefect, expectCode } from "./AnswerRules.js"
import { Base, describePick, JSON_HEADERS, type KeyPick, pickKey } from "./CommandBase.js"
import { createsWhilePaging, type CreatesWhilePagingPlan } from "./CreatesWhilePaging.js"
import type { Model } from "./Model.js"
import type { PetRecord } from "./ModelRecords.js"
import { checkPage } from "./PageCheck.js"
import { readPetBack } from "./ReadYourWrites.js"
import type { Session } from "./Session.js"
import { expectStatus, fail } from "./Violation.js"

const SUNSET = "Thu, 05 Dec 2030 00:00:00 GMT"

export class CreatePet extends Base {
  constructor(
    readonly pick: KeyPick,
    readonly pet: { name: string; categoryId: number; status?: string },
    readonly scheme: string,
    readonly extra: { readonly id?: number; readonly note?: string }
  ) {
    super()
  }
  toString() {
    const body = { ...this.extra, ...this.pet }
    return `createPet(${describePick(this.pick)}, ${JSON.stringify(body)}${this.scheme === "Bearer" ? "" : `, scheme ${this.scheme}`})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}/pets`
    // Unknown fields, `id` among them, are ignored.
    const body = JSON.stringify({ ...this.extra, ...this.pet })
    const x = await session.keyed("create a pet", key, { method: "POST", path, headers: JSON_HEADERS, body }, this.scheme)
    if (x === undefined) return
    const what = `create a pet: POST ${path} → ${x.response.status}`
    expectStatus(what, x.response.status, [201], x.response.text)
    const pet = session.json(x, what) as PetRecord
    const expected = { name: this.pet.name, categoryId: this.pet.categoryId, status: this.pet.status ?? "available" }
    if (pet.name !== expected.name || pet.categoryId !== expected.categoryId || pet.status !== expected.status) {
      fail(`${what}: created ${JSON.stringify(pet)}, expected ${JSON.stringify(expected)} (status defaults to available)`)
    }
    if (!(pet.id > model.maxPetId)) {
      fail(`${what}: new pet id ${pet.id} is not above every id seen before (${model.maxPetId}); pets created while a client pages would be skipped`)
    }
    const location = x.response.headers["location"]
    if (location === undefined || !location.endsWith(`/pets/${pet.id}`)) {
      fail(`${what}: Location ${JSON.stringify(location)} does not point at /pets/${pet.id}`)
    }
    model.observePet(pet, what)
    model.acknowledged.set(pet.id, pet)
    await readPetBack(model, session, pet)
  }
}

export class CreatePetInvalid extends Base {
  constructor(readonly pick: KeyPick, readonly invalid: Invalid.InvalidBody) {
    super()
  }
  toString() {
    return `createPetInvalid(${describePick(this.pick)}, ${this.invalid.defect}: ${this.invalid.description})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}/pets`
    const headers: Record<string, string> = this.invalid.contentType === null ? {} : { "Content-Type": this.invalid.contentType }
    const x = await session.keyed(`create a pet with ${this.invalid.defect}`, key, { method: "POST", path, headers, body: this.invalid.body })
    if (x === undefined) return
    const what = `POST ${path} with ${this.invalid.defect} (${this.invalid.description}) → ${x.response.status}`
    expectStatus(what, x.response.status, [this.invalid.expectedStatus], x.response.text)
    expectCode(what, x, codesForDefect(this.invalid.defect))
  }
}

export class GetPet extends Base {
  constructor(readonly pick: KeyPick, readonly target: "known" | "absent" | "largest", readonly index: number) {
    super()
  }
  toString() {
    return `getPet(${describePick(this.pick)}, ${this.target}#${this.index % 97})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const known = [...model.pets.values()]
    const pet = this.target === "known" && known.length > 0 ? known[this.index % known.length] : undefined
    const id = pet !== undefined ? pet.id : this.target === "largest" ? Number.MAX_SAFE_INTEGER : model.maxPetId + 1_000_000_000
    const path = `${session.publicPrefix}/pets/${id}`
    const x = await session.keyed("get a pet", key, { method: "GET", path })
    if (x === undefined) return
    const what = `get a pet: GET ${path} → ${x.response.status}`
    if (x.response.headers["sunset"] !== SUNSET) fail(`${what}: Sunset ${JSON.stringify(x.response.headers["sunset"])}, expected ${SUNSET}`)
    if (!/^@\d+$/.test(x.response.headers["deprecation"] ?? "")) {
      fail(`${what}: Deprecation ${JSON.stringify(x.response.headers["deprecation"])} is not an RFC 9745 date (@epoch-seconds)`)
    }
    if (!/rel="?successor-version"?/.test(x.response.headers["link"] ?? "")) fail(`${what}: no Link to the successor (rel="successor-version")`)
    if (pet === undefined) {
      expectStatus(what, x.response.status, [404], x.response.text)
      return
    }
    expectStatus(what, x.response.status, [200], x.response.text)
    const got = session.json(x, what) as PetRecord
    if (got.id !== pet.id) fail(`${what}: asked for pet ${pet.id}, got ${got.id}`)
    model.observePet(got, what)
  }
}

export class GetPetInvalid extends Base {
  constructor(readonly pick: KeyPick, readonly invalid: { readonly defect: string; readonly segment: string }) {
    super()
  }
  toString() {
    return `getPetInvalid(${describePick(this.pick)}, ${this.invalid.defect}: ${this.invalid.segment})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}/pets/${this.invalid.segment}`
    const x = await session.keyed(`get a pet with ${this.invalid.defect}`, key, { method: "GET", path })
    if (x === undefined) return
    const what = `GET ${path} (${this.invalid.defect}) → ${x.response.status}`
    expectStatus(what, x.response.status, [400], x.response.text)
    expectCode(what, x, codesForDefect(this.invalid.defect))
  }
}

export class ListPets extends Base {
  constructor(
    readonly pick: KeyPick,
    readonly query: { readonly limit?: number; readonly status?: string },
    readonly unknownParameter = false
  ) {
    super()
  }
  toString() {
    return `listPets(${describePick(this.pick)}, ${JSON.stringify(this.query)}${this.unknownParameter ? ", with an unknown parameter" : ""})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const params = new URLSearchParams()
    if (this.query.limit !== undefined) params.set("limit", String(this.query.limit))
    if (this.query.status !== undefined) params.set("status", this.query.status)
    // Unknown query parameters are ignored.
    if (this.unknownParameter) params.set("utm_source", "conformance")
    const qs = params.toString()
    const path = `${session.publicPrefix}/pets${qs === "" ? "" : `?${qs}`}`
    const x = await session.keyed("list pets", key, { method: "GET", path })
    if (x === undefined) return
    const chain = { limit: this.query.limit ?? 20, status: this.query.status, afterId: 0 }
    const page = checkPage(model, session, chain, x, `list pets: GET ${path} → ${x.response.status}`)
    model.chains.push({ ...chain, key, afterId: page.lastId, next: page.next, pages: 1 })
  }
}

export class NextPage extends Base {
  constructor(readonly index: number) {
    super()
  }
  override check(model: Readonly<Model>) {
    return model.chains.some((c) => c.next !== undefined)
  }
  toString() {
    return `nextPage(listing#${this.index % 97})`
  }
  async run(model: Model, session: Session) {
    const open = model.chains.filter((c) => c.next !== undefined)
    if (open.length === 0) return
    const chain = open[this.index % open.length]!
    const path = chain.next!
    const x = await session.keyed(`next page of a listing (page ${chain.pages + 1})`, chain.key, { method: "GET", path })
    if (x === undefined) return
    const page = checkPage(model, session, chain, x, `next page: GET ${path} → ${x.response.status}`)
    chain.afterId = page.lastId
    chain.next = page.next
    chain.pages++
  }
}

export class ListInvalid extends Base {
  constructor(readonly pick: KeyPick, readonly invalid: Invalid.InvalidQuery) {
    super()
  }
  toString() {
    return `listPetsInvalid(${describePick(this.pick)}, ${this.invalid.defect}: ${this.invalid.description})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}/pets?${this.invalid.query}`
    const x = await session.keyed(`list pets with ${this.invalid.defect}`, key, { method: "GET", path })
    if (x === undefined) return
    const what = `GET ${path} (${this.invalid.defect}) → ${x.response.status}`
    expectStatus(what, x.response.status, [400], x.response.text)
    expectCode(what, x, codesForDefect(this.invalid.defect))
  }
}

export class ForgeCursor extends Base {
  constructor(readonly index: number, readonly forgery: { readonly description: string; readonly forge: (c: string) => string } | "other_filter") {
    super()
  }
  override check(model: Readonly<Model>) {
    return model.chains.some((c) => c.next !== undefined)
  }
  toString() {
    return `forgedCursor(listing#${this.index % 97}, ${this.forgery === "other_filter" ? "the cursor with another status filter" : this.forgery.description})`
  }
  async run(model: Model, session: Session) {
    const open = model.chains.filter((c) => c.next !== undefined)
    if (open.length === 0) return
    const chain = open[this.index % open.length]!
    const url = new URL(chain.next!, "http://x")
    const cursor = url.searchParams.get("cursor") ?? ""
    if (this.forgery === "other_filter") {
      const other = ["available", "pending", "sold", undefined].find((s) => s !== chain.status)
      if (other === undefined) url.searchParams.delete("status")
      else url.searchParams.set("status", other)
    } else {
      const forged = this.forgery.forge(cursor)
      if (forged === cursor) return
      url.searchParams.set("cursor", forged)
    }
    const path = url.pathname + url.search
    const x = await session.keyed("list pets with a forged cursor", chain.key, { method: "GET", path })
    if (x === undefined) return
    const what = `GET ${path} (forged cursor) → ${x.response.status}`
    expectStatus(what, x.response.status, [400], x.response.text)
    expectCode(what, x, codesForDefect("forged_cursor"))
  }
}


/** Pets created with one key while the checker's key pages through the listing; see `CreatesWhilePaging.ts`. */
export class CreatesWhilePagingCommand extends Base {
  constructor(readonly pick: KeyPick, readonly plan: CreatesWhilePagingPlan) {
    super()
  }
  toString() {
    return `createsWhilePaging(${describePick(this.pick)}, limit ${this.plan.limit}, ${this.plan.pets.length} creates)`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    await createsWhilePaging(model, session, key, this.plan)
  }
}
