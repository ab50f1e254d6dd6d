/**
 * `PetRepository` on PostgreSQL, shared by every instance.
 *
 * Keyset pagination (`id > cursor`) is exact only if a pet never becomes visible behind a cursor a
 * reader already passed. Ids from a sequence break that: a transaction can take id 4, another id 5
 * and commit first, and a reader that saw 5 has paged past 4 before 4 appears. Here ids come from
 * the one row of `pet_ids`, taken by the insert statement itself (`UPDATE … RETURNING` in a data-
 * modifying CTE), and that row stays locked until the statement commits: inserts from every
 * connection and instance commit one after the other, each with ids above every id already visible.
 * So once a page was served past an id, no lower id can appear later, and a full page never changes
 * (which lets the Pets service keep it). The cost is that pet inserts are serialized across all
 * instances; each instance sends its concurrent inserts as one statement (`WriteBatcher`), so the
 * serialized unit is a batch, not a pet.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Errors, type Pet, PetRepository, StoreRows } from "@petstore/core"
import { Database, statement } from "./Database.js"
import * as WriteBatcher from "./WriteBatcher.js"

// One statement per batch: take `n` ids from the counter (locking its row until commit) and insert
// the batch under them, in the batch's order. $1 names, $2 category ids, $3 statuses.
const INSERT_BATCH = statement(`
  WITH taken AS (UPDATE pet_ids SET last = last + cardinality($1::text[]) RETURNING last - cardinality($1::text[]) AS before),
  inserted AS (
    INSERT INTO pets (id, name, category_id, status)
    SELECT taken.before + d.n, d.name, d.category_id, d.status
    FROM taken, unnest($1::text[], $2::int8[], $3::text[]) WITH ORDINALITY AS d(name, category_id, status, n)
  )
  SELECT before + 1 AS first FROM taken`)
const PAGE = statement("SELECT id, name, category_id, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2")
const PAGE_BY_STATUS = statement(
  "SELECT id, name, category_id, status FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3"
)
const BY_ID = statement("SELECT id, name, category_id, status FROM pets WHERE id = $1")

/** The pet repository on PostgreSQL. @category constructors */
export const make = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Effect.Effect<PetRepository.PetRepository["Service"], never, Database> =>
  Effect.map(Database, (db) => {
    const inserts = WriteBatcher.make<PetRepository.PetDraft, Pet.Pet>(
      (drafts) =>
        Effect.flatMap(
          db.query<{ first: number }>(INSERT_BATCH, [
            drafts.map((d) => d.name),
            drafts.map((d) => d.categoryId),
            drafts.map((d) => d.status)
          ]),
          ([row]) =>
            row === undefined
              ? Effect.fail(new Errors.StoreUnavailable({ cause: new Error("the pet id counter (table pet_ids) has no row; nothing was inserted") }))
              : Effect.succeed(drafts.map((d, i): Pet.Pet => ({
              id: (row.first + i) as Pet.PetId,
              name: d.name,
              categoryId: d.categoryId,
              status: d.status
            })))
        ),
      options
    )
    return PetRepository.PetRepository.of({
      insert: inserts.write,
      // No operation changes a stored pet, so nothing is announced (see `PetRepository.onChange`).
      onChange: PetRepository.changeListeners().onChange,
      // Full pages are kept by the Pets service (they never change), so this runs for the others.
      listAfter: ({ afterId, limit, status }) =>
        Effect.map(
          Option.isSome(status)
            ? db.query<StoreRows.PetRow>(PAGE_BY_STATUS, [status.value, afterId, limit])
            : db.query<StoreRows.PetRow>(PAGE, [afterId, limit]),
          (rows) => rows.map(StoreRows.toPet)
        ),
      findById: (id) => Effect.map(db.query<StoreRows.PetRow>(BY_ID, [id]), (rows) => Option.map(Option.fromNullishOr(rows[0]), StoreRows.toPet))
    })
  })

/** The pet repository on PostgreSQL, as a layer. @category layers */
export const layer = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Layer.Layer<PetRepository.PetRepository, never, Database> => Layer.effect(PetRepository.PetRepository, make(options))
