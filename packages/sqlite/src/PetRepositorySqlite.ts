/**
 * `PetRepository` on SQLite. Ids come from `AUTOINCREMENT` inside group-committed transactions,
 * which SQLite runs one at a time, so ids grow in commit order; and reads never run inside an open
 * batch. Together: once a page was served past an id, no lower id can appear later (keyset
 * pagination stays exact under concurrent inserts).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type Pet, PetRepository } from "@petstore/core"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"
import * as Columns from "./internal/columns.js"

/** The columns of `pets` a draft fills, each with the `Pet` field it holds (`id` is the table's). */
const DRAFT_COLUMNS: ReadonlyArray<Columns.Column<PetRepository.PetDraft>> = [
  ["name", "name"],
  ["category_id", "categoryId"],
  ["status", "status"]
]

/** What every read of `pets` selects (here and in `Export`): a row is a `Pet` once `readPets` completed it. */
export const PET_COLUMNS = `id, ${Columns.selectList(DRAFT_COLUMNS)}`

/** The pets of rows read with `PET_COLUMNS` (changed in place). */
export const readPets: <R extends ReadonlyArray<unknown>>(rows: R) => R = Columns.complete(DRAFT_COLUMNS)

/**
 * The one insert of a pet: stores a draft under the next id, inside the caller's write (the
 * repository's, or a keyed create's with its record).
 */
export const petInsert = (connection: Connection["Service"]) => {
  const insert = connection.prepare(
    `INSERT INTO pets (${Columns.names(DRAFT_COLUMNS)}) VALUES (${Columns.placeholders(DRAFT_COLUMNS)})`
  )
  return (draft: PetRepository.PetDraft): Pet.Pet => ({
    id: Number(insert.run(...Columns.values(DRAFT_COLUMNS, draft)).lastInsertRowid) as Pet.PetId,
    ...draft
  })
}

/** The pet repository on SQLite. @category constructors */
export const make: Effect.Effect<PetRepository.PetRepository["Service"], never, Connection | Database> = Effect
  .gen(function*() {
    const connection = yield* Connection
    const db = yield* Database
    const insert = petInsert(connection)
    const page = connection.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`)
    const pageByStatus = connection.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`)
    const byId = connection.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id = ?`)
    return PetRepository.PetRepository.of({
      insert: (draft) => db.write(() => insert(draft)),
      // No operation changes a stored pet, so nothing is announced (see `PetRepository.onChange`).
      onChange: PetRepository.changeListeners().onChange,
      // Full pages are kept by the Pets service (they never change), so this runs for the others.
      listAfter: ({ afterId, limit, status }) =>
        db.read(() =>
          readPets((Option.isSome(status) ? pageByStatus.all(status.value, afterId, limit) : page.all(afterId, limit)) as Array<Pet.Pet>)
        ),
      findById: (id) => db.read(() => Option.fromNullishOr(readPets([byId.get(id) as Pet.Pet | undefined])[0]))
    })
  })

/** The pet repository on SQLite, as a layer. @category layers */
export const layer: Layer.Layer<PetRepository.PetRepository, never, Connection | Database> = Layer.effect(
  PetRepository.PetRepository,
  make
)
