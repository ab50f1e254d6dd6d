/**
 * The one error body of the interface.
 *
 * @since 1.0.0
 */
import * as Schema from "effect/Schema"

/** The body of every error answer: a stable code, a message and the status. @category schemas */
export const ErrorBody = Schema.Struct({
  code: Schema.String.annotate({ description: "Machine-readable error code (stable snake_case)." }),
  message: Schema.String.annotate({ description: "Human-readable description." }),
  status: Schema.Int.annotate({ description: "The HTTP status code." })
}).annotate({ identifier: "Error", description: "Every error response has this body." })
/** The body of every error answer, decoded. */
export type ErrorBody = typeof ErrorBody.Type
