/**
 * Operation lifecycle: deprecation and sunset of `GET /pets/{petId}`.
 *
 * @since 1.0.0
 */

/** When `getPet` was deprecated (2026-01-01T00:00:00Z), for the `Deprecation` field. */
export const GET_PET_DEPRECATED_AT = Date.UTC(2026, 0, 1)

/** From this instant on `getPet` answers 410 Gone (2030-12-05T00:00:00Z). */
export const GET_PET_SUNSET_AT = Date.UTC(2030, 11, 5)

/** Whether `getPet` is past its sunset at `now` (epoch ms, from the service's clock). */
export const isGetPetSunset = (now: number): boolean => now >= GET_PET_SUNSET_AT
