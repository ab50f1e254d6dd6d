/**
 * Checks a run makes outside its command sequences, before them or after them, each on a fresh
 * log so that a violation comes back with just its own requests.
 */
import type { Session } from "./Session.js"
import { ConformanceViolation } from "./Violation.js"

/** A violation found outside the sequences, with its requests as curl commands. */
export interface OutsideFailure {
  readonly message: string
  readonly curl: string
}

/**
 * Runs checks outside any command sequence (the inventory) on a fresh log: a violation comes back
 * with its requests as curl commands; a reason it could not be taken as a string.
 */
export const outsideSequences = async (
  session: Session,
  body: () => Promise<string | undefined>
): Promise<OutsideFailure | string | undefined> => {
  session.startPhase()
  try {
    return await body()
  } catch (error) {
    if (!(error instanceof ConformanceViolation)) throw error
    return { message: error.message, curl: session.curlScript() }
  }
}
