/** The core's errors as the commands explain them: one line that says what to do. */
import type { Errors } from "@petstore/core"
import { CliFailure, describe } from "../CommandFailure.js"

export const storeUnavailable = (error: Errors.StoreUnavailable) =>
  new CliFailure({ message: `the store cannot be reached: ${describe(error.cause)}` })

export const unknownAccount = (error: Errors.AccountNotFound) =>
  new CliFailure({ message: `unknown account ${JSON.stringify(error.id)}` })

export const unknownKey = (error: Errors.KeyNotFound) => new CliFailure({ message: `unknown key ${JSON.stringify(error.id)}` })

// Only an active key can be rotated; the core does not say which of the other cases it was.
export const noActiveKey = (error: Errors.KeyNotFound) =>
  new CliFailure({ message: `no active key ${JSON.stringify(error.id)} (unknown, revoked or expired)` })

// A key is rotated once: the failure names the key to rotate instead.
export const alreadyRotated = (error: Errors.KeyAlreadyRotated) =>
  new CliFailure({
    message: `key ${JSON.stringify(error.id)} was already rotated: its successor is ${JSON.stringify(error.successorId)}; ` +
      `rotate ${JSON.stringify(error.successorId)} to replace it in turn`
  })
