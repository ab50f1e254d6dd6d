/**
 * What the webhook check keeps while a run goes on: the endpoints the checker set, with the secret
 * each `PUT` answered, and the messages it got a `202` for from those accounts.
 */
import { Webhook } from "standardwebhooks"
import type { ReceivedDelivery } from "./WebhookReceiver.js"

/** A message accepted (`202`) from an account with an endpoint. */
export interface AcceptedMessage {
  readonly id: string
  readonly accountId: string
  readonly text: string
  readonly createdAt: string
}

/** A delivery's header, its first value when it came more than once. */
export const header = (d: Pick<ReceivedDelivery, "headers">, name: string): string | undefined => {
  const value = d.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** The endpoints the checker set (with the secret each `PUT` answered) and the messages it got a 202 for. */
export class WebhookLedger {
  private readonly secrets = new Map<string, string>()
  readonly accepted = new Map<string, AcceptedMessage>()

  setEndpoint(accountId: string, secret: string): void {
    this.secrets.set(accountId, secret)
  }

  hasEndpoint(accountId: string | undefined): boolean {
    return accountId !== undefined && this.secrets.has(accountId)
  }

  /** Notes a message accepted from an account with an endpoint (the others are not delivered). */
  accept(message: AcceptedMessage): void {
    if (this.hasEndpoint(message.accountId)) this.accepted.set(message.id, message)
  }

  get endpoints(): number {
    return this.secrets.size
  }

  /** The receiver's check on arrival: the signature under the account's secret, the timestamp within 5 minutes. */
  readonly verify = (d: Pick<ReceivedDelivery, "accountId" | "headers" | "body">): string | undefined => {
    const secret = d.accountId === undefined ? undefined : this.secrets.get(d.accountId)
    if (secret === undefined) return "no secret was issued for this URL"
    const headers: Record<string, string> = {}
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const value = header(d, name)
      if (value !== undefined) headers[name] = value
    }
    try {
      new Webhook(secret).verify(d.body, headers)
      return undefined
    } catch (error) {
      return (error as Error).message
    }
  }
}
