/**
 * Webhook deliveries at the end of a run (`--webhook-receiver`): every message the checker got a
 * `202` for, from an account whose endpoint it set to its receiver, must arrive there at least once
 * (the check waits for it, up to a bound); each delivery must verify, with the `standardwebhooks`
 * package, under the secret the `PUT …/webhook` answered; its `webhook-id` must be the message's id
 * (so every duplicate carries the same one) and its payload the message as submitted:
 * `{"type": "message.submitted", "timestamp", "data": {id, message, createdAt}}`. A delivery of a
 * message the checker never got a `202` for, or to another account's endpoint, is a violation too.
 */
import { JSON_HEADERS } from "./CommandBase.js"
import type { Session } from "./Session.js"
import { expectStatus, fail } from "./Violation.js"
import { type AcceptedMessage, header, type WebhookLedger } from "./WebhookLedger.js"
import type { ReceivedDelivery, WebhookReceiver } from "./WebhookReceiver.js"

/** What the check saw, for the report. @category models */
export interface WebhookSummary {
  /** Messages accepted from accounts with an endpoint: each was delivered. */
  readonly messages: number
  readonly deliveries: number
  /** Deliveries beyond the first of a message (at least once allows them; each carried the same `webhook-id`). */
  readonly duplicates: number
  /** Endpoints the checker set. */
  readonly endpoints: number
}

const EVENT_TYPE = "message.submitted"

const missing = (ledger: WebhookLedger, receiver: WebhookReceiver): Array<AcceptedMessage> => {
  const arrived = new Set(receiver.deliveries.map((d) => header(d, "webhook-id")))
  return [...ledger.accepted.values()].filter((m) => !arrived.has(m.id))
}

/** Checks one delivery against the message it names. */
const checkDelivery = (ledger: WebhookLedger, d: ReceivedDelivery): void => {
  const where = `a delivery to ${d.path}`
  if (d.method !== "POST") fail(`${where}: method ${d.method}, expected POST`)
  if (!ledger.hasEndpoint(d.accountId)) fail(`${where}: no endpoint the checker set has this URL`)
  const id = header(d, "webhook-id")
  if (id === undefined) fail(`${where}: no webhook-id header`)
  const message = ledger.accepted.get(id!)
  const what = `the delivery of message ${id} to the endpoint of account ${d.accountId}`
  if (message === undefined) {
    fail(`${what}: the checker never got a 202 for a message ${id} of this account (webhook-id must be the id the 202 answered, the same on every attempt)`)
  }
  if (message!.accountId !== d.accountId) fail(`${what}: the message is account ${message!.accountId}'s, delivered to another account's endpoint`)
  if (d.signatureProblem !== undefined) {
    fail(`${what} does not verify (standardwebhooks) with the secret PUT /admin/v1/accounts/${d.accountId}/webhook answered: ${d.signatureProblem}`)
  }
  let event: { type?: unknown; timestamp?: unknown; data?: { id?: unknown; message?: unknown; createdAt?: unknown } }
  try {
    event = JSON.parse(d.body.toString("utf8"))
  } catch {
    return fail(`${what}: the body is not JSON: ${d.body.toString("utf8").slice(0, 100)}`)
  }
  const expected = { id: message!.id, message: message!.text, createdAt: message!.createdAt }
  const data = event.data
  const sameTime = (a: unknown, b: string) => typeof a === "string" && Date.parse(a) === Date.parse(b)
  if (
    event.type !== EVENT_TYPE || data?.id !== expected.id || data.message !== expected.message ||
    !sameTime(data.createdAt, expected.createdAt)
  ) {
    fail(`${what}: the payload ${d.body.toString("utf8").slice(0, 300)} is not {"type": "${EVENT_TYPE}", "data": ${JSON.stringify(expected)}}`)
  }
}

/** Messages the check submits itself, from the checker's own account, so it never has nothing to check. */
export const PROBES = 3

const submitProbes = async (session: Session, ledger: WebhookLedger): Promise<void> => {
  const key = session.checkerKey
  if (key?.account.id === undefined) return
  const path = `${session.messagesPrefix}/messages`
  for (let i = 1; i <= PROBES; i++) {
    const text = `webhook check ${i} ✓`
    const x = await session.keyed("submit a message for the webhook check", key, { method: "POST", path, headers: JSON_HEADERS, body: JSON.stringify({ message: text }) })
    if (x === undefined) continue
    const what = `submit a message for the webhook check: POST ${path} → ${x.response.status}`
    expectStatus(what, x.response.status, [202], x.response.text)
    const m = session.json(x, what) as { id: string; createdAt: string }
    ledger.accept({ id: m.id, accountId: key.account.id, text, createdAt: m.createdAt })
  }
}

/**
 * Submits {@link PROBES} messages of its own, then waits (up to `waitMs`) for a delivery of every accepted message, then checks every delivery;
 * throws a violation, or answers what it saw.
 */
export const checkDeliveries = async (
  session: Session,
  ledger: WebhookLedger,
  receiver: WebhookReceiver,
  options: { readonly waitMs: number }
): Promise<WebhookSummary> => {
  await submitProbes(session, ledger)
  const deadline = Date.now() + options.waitMs
  let left = missing(ledger, receiver)
  while (left.length > 0 && Date.now() < deadline) {
    await receiver.nextDelivery(deadline - Date.now())
    left = missing(ledger, receiver)
  }
  for (const d of receiver.deliveries) checkDelivery(ledger, d)
  if (left.length > 0) {
    const shown = left.slice(0, 5).map((m) => `${m.id} (account ${m.accountId})`).join(", ")
    fail(
      `${left.length} of the ${ledger.accepted.size} messages accepted with 202 from accounts whose endpoint is the checker's receiver ` +
        `did not arrive there within ${options.waitMs} ms after the run: ${shown}${left.length > 5 ? ", …" : ""}`
    )
  }
  const ids = new Set(receiver.deliveries.map((d) => header(d, "webhook-id")))
  return {
    messages: ledger.accepted.size,
    deliveries: receiver.deliveries.length,
    duplicates: receiver.deliveries.length - ids.size,
    endpoints: ledger.endpoints
  }
}
