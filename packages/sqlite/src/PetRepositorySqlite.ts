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
import { type Pet, PetRepository, StoreRows } from "@petstore/core"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

/** The pet repository on SQLite. @category constructors */
export const make: Effect.Effect<PetRepository.PetRepository["Service"], never, Connection | Database> = Effect
  .gen(function*() {
    const connection = yield* Connection
    const db = yield* Database
    const insert = connection.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)")
    const page = connection.prepare("SELECT id, name, category_id, status FROM pets WHERE id > ? ORDER BY id LIMIT ?")
    const pageByStatus = connection.prepare(
      "SELECT id, name, category_id, status FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?"
    )
    const byId = connection.prepare("SELECT id, name, category_id, status FROM pets WHERE id = ?")
    return PetRepository.PetRepository.of({
      insert: (draft) =>
        Effect.map(
          db.write(() => Number(insert.run(draft.name, draft.categoryId, draft.status).lastInsertRowid)),
          (id): Pet.Pet => ({ id: id as Pet.PetId, name: draft.name, categoryId: draft.categoryId, status: draft.status })
        ),
      // No operation changes a stored pet, so nothing is announced (see `PetRepository.onChange`).
      onChange: PetRepository.changeListeners().onChange,
      // Full pages are kept by the Pets service (they never change), so this runs for the others.
      listAfter: ({ afterId, limit, status }) =>
        db.read(() =>
          ((Option.isSome(status) ? pageByStatus.all(status.value, afterId, limit) : page.all(afterId, limit)) as Array<StoreRows.PetRow>)
            .map(StoreRows.toPet)
        ),
      findById: (id) =>
        db.read(() => Option.map(Option.fromNullishOr(byId.get(id) as StoreRows.PetRow | undefined), StoreRows.toPet))
    })
  })

/** The pet repository on SQLite, as a layer. @category layers */
export const layer: Layer.Layer<PetRepository.PetRepository, never, Connection | Database> = Layer.effect(
  PetRepository.PetRepository,
  make
)
