/**
 * The commands on keys through the admin API: issue, rotate (once, or twice), revoke and list.
 */
import { type Command, Base, describePick, type KeyPick, pickKey } from "./CommandBase.js"
import { type Model } from "./Model.js"
import type { Session } from "./Session.js"

export class IssueKey implements Command {
  constructor(readonly index: number) {}
  check(model: Readonly<Model>) {
    return model.accounts.some((a) => a.id !== undefined)
  }
  toString() {
    return `issueKey(account#${this.index % 97})`
  }
  run(_model: Model, session: Session) {
    return session.admin.issueKey(this.index)
  }
}

/** Rotates a key; `again`: then once more, as a retry or a second operator would (a key is rotated once). */
export class RotateKey extends Base {
  constructor(readonly pick: KeyPick, readonly graceSeconds: number, readonly again: boolean) {
    super()
  }
  toString() {
    return `rotateKey(${describePick(this.pick)}, grace ${this.graceSeconds} s${this.again ? ", twice" : ""})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined || key.keyId === undefined) return
    await session.admin.rotateKey(key, this.graceSeconds)
    if (this.again) await session.admin.rotateKey(key, this.graceSeconds)
  }
}

export class RevokeKey extends Base {
  constructor(readonly pick: KeyPick) {
    super()
  }
  toString() {
    return `revokeKey(${describePick(this.pick)})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined || key.keyId === undefined) return
    await session.admin.revokeKey(key)
  }
}

export class ListKeys implements Command {
  constructor(readonly index: number) {}
  check(model: Readonly<Model>) {
    return model.accounts.some((a) => a.id !== undefined)
  }
  toString() {
    return `listKeys(account#${this.index % 97})`
  }
  run(_model: Model, session: Session) {
    return session.admin.listKeys(this.index)
  }
}
