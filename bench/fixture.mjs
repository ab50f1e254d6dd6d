// The data every target serves, so that all of them answer with the same bytes: the same pets in the
// same order (ids 1..SEED_PETS as the stores assign them), the same page size, the same POST body.

/** Pets created before the first round; more than a page, so `GET /v1/pets` carries a `Link`. */
export const SEED_PETS = 100

/** The page the GET scenario asks for. */
export const PAGE_LIMIT = 20

const STATUSES = ["available", "pending", "sold"]

/** The creation body of the i-th seeded pet (1-based). */
export const draft = (i) => ({ name: `Pet ${i}`, categoryId: (i % 7) + 1, status: STATUSES[i % 3] })

/** The stored pet with id i, as every target returns it. */
export const pet = (i) => ({ id: i, ...draft(i) })

/** The first page, as our server and the Fastify peer return it for `GET /v1/pets?limit=20`. */
export const firstPage = () => Array.from({ length: PAGE_LIMIT }, (_, k) => pet(k + 1))

/** The body of every POST of the POST scenario. */
export const POST_BODY = JSON.stringify({ name: "Bench", categoryId: 3, status: "pending" })

/** Limits of the bench accounts: far above any load this machine can make, so no request gets 429. */
export const BENCH_LIMITS = { perMinute: 1_000_000, perDay: 1_000_000_000 }
