/**
 * How a conformance check fails: a {@link ConformanceViolation} thrown with a message that says what
 * was expected and what the server did.
 *
 * @since 1.0.0
 */

/** A failed conformance check. @category errors */
export class ConformanceViolation extends Error {
  override readonly name = "ConformanceViolation"
}

/** Fails the check with `message`. */
export const fail = (message: string): never => {
  throw new ConformanceViolation(message)
}

/** Fails unless the status is one of `expected`, quoting the start of the body. */
export const expectStatus = (what: string, actual: number, expected: ReadonlyArray<number>, body: string): void => {
  if (!expected.includes(actual)) fail(`${what}: expected ${expected.join(" or ")}, got ${actual}: ${body.slice(0, 300)}`)
}
