/**
 * What every command of the conformance run shares: how it picks a key at run time (by index, so
 * any sequence is runnable and shrinking can drop any command) and its base class.
 */

import * as fc from "fast-check"
import { now } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { KeyModel } from "./ModelRecords.js"
import type { Session } from "./Session.js"

/** A command of the run. */
export type Command = fc.AsyncCommand<Model, Session, boolean>

export const JSON_HEADERS = { "Content-Type": "application/json" }
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A key chosen at run time: among the usable ones, or (sometimes) among all, ended ones included. */
export interface KeyPick {
  readonly index: number
  readonly anyKey: boolean
}
export const keyPickArb: fc.Arbitrary<KeyPick> = fc.record({ index: fc.nat(), anyKey: fc.constantFrom(false, false, false, true) })

export const pickKey = (model: Model, pick: KeyPick): KeyModel | undefined => {
  const keys = pick.anyKey ? model.accounts.flatMap((a) => a.keys) : model.liveKeys(now())
  return keys.length === 0 ? undefined : keys[pick.index % keys.length]
}

export const describePick = (pick: KeyPick) => `${pick.anyKey ? "any" : "live"}key#${pick.index % 97}`

const hasKeys = (model: Model) => model.accounts.some((a) => a.keys.length > 0)

export abstract class Base implements Command {
  abstract run(model: Model, session: Session): Promise<void>
  abstract toString(): string
  check(model: Readonly<Model>): boolean {
    return hasKeys(model as Model)
  }
}
