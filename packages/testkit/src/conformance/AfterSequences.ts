/**
 * The checks of a conformance run after its command sequences, each outside any sequence: keyed
 * creates at once over several instances, the inventory, the usage counts (admin and own), and the
 * webhook deliveries. Each returns the failure it found, or nothing; what could not be checked is a
 * warning of the report.
 */
import { now } from "./HttpExchange.js"
import { takeInventory } from "./Inventory.js"
import { ConcurrentKeyedCreates } from "./KeyedCreateCommands.js"
import type { Model } from "./Model.js"
import { outsideSequences } from "./OutsideSequences.js"
import * as OwnUsageCheck from "./OwnUsageCheck.js"
import type { RunSettings } from "./RunOptions.js"
import { type ConformanceFailure, failureAfterSequences, type RunTally } from "./RunReport.js"
import type { Session } from "./Session.js"
import { checkUsage } from "./UsageCheck.js"
import { checkDeliveries } from "./WebhookCheck.js"
import type { WebhookLedger } from "./WebhookLedger.js"
import type { WebhookReceiver } from "./WebhookReceiver.js"

/** What the after-sequence checks work with. */
export interface AfterRun {
  readonly settings: RunSettings
  readonly session: Session
  readonly model: Model
  readonly tally: RunTally
}

/**
 * With several instances: requests with one Idempotency-Key at once over all of them (a phase of
 * its own, not a command: bursts in every sequence would make shrinking other failures slow).
 */
export const checkKeyedCreatesAcrossInstances = async ({ model, session, settings, tally }: AfterRun): Promise<ConformanceFailure | undefined> => {
  const keyed = await outsideSequences(session, async () => {
    for (const [index, count] of [2, 6, 10].entries()) {
      await new ConcurrentKeyedCreates({ index, anyKey: false }, { categoryId: index + 1 }, count).run(model, session)
    }
    return undefined
  })
  tally.requests += session.log.length
  return typeof keyed === "object"
    ? failureAfterSequences(settings, "keyed creates at once over the instances, after every sequence", keyed)
    : undefined
}

/** The inventory: every pet acknowledged is there, and no pet the server never acknowledged. */
export const checkInventory = async ({ model, session, settings, tally }: AfterRun): Promise<ConformanceFailure | undefined> => {
  const after = await outsideSequences(session, () => takeInventory(model, session))
  tally.requests += session.log.length
  if (typeof after === "object") return failureAfterSequences(settings, "the inventory after every sequence", after)
  if (after !== undefined) tally.warnings.push(`the inventory is not taken: ${after}`)
  return undefined
}

/** With an admin token: each account's usage as the admin API reports it. */
export const checkAdminUsage = async ({ model, session, settings, tally }: AfterRun): Promise<ConformanceFailure | undefined> => {
  const { options } = settings
  const usage = await outsideSequences(session, async () => {
    session.usage.note(model.accounts)
    return checkUsage(session.usage, async (accountId, from, to) => {
      const x = await session.send("usage", {
        method: "GET",
        path: `/admin/v1/accounts/${encodeURIComponent(accountId)}/usage?from=${from}&to=${to}`,
        headers: { Authorization: `Bearer ${options.adminToken}` }
      })
      return { status: x.response.status, body: x.response.status === 200 ? JSON.parse(x.response.text) : x.response.text }
    }, { waitMs: options.usageWaitMs ?? 15_000, maxAccounts: 20 })
  })
  tally.requests += session.log.length
  if (typeof usage === "object") return failureAfterSequences(settings, "the usage after every sequence", usage)
  if (usage !== undefined) tally.warnings.push(`usage is not checked: ${usage}`)
  return undefined
}

/** Each key's own usage through `GET /v1/usage`, less what keys given by hand had used before the run. */
export const checkOwnUsage = async (
  { model, session, settings, tally }: AfterRun,
  baselines: OwnUsageCheck.Baselines | string | undefined
): Promise<ConformanceFailure | undefined> => {
  const own = typeof baselines === "string" ? baselines : await outsideSequences(session, async () => {
    session.usage.note(model.accounts)
    return OwnUsageCheck.notInDocument(session) ?? OwnUsageCheck.checkOwnUsage(
      session.usage,
      OwnUsageCheck.readThrough(session),
      { toldToWait: (k, at) => model.toldToWait(k, at), at: now },
      { waitMs: settings.options.usageWaitMs ?? 15_000, maxAccounts: 20, maxRefusalWaitMs: 3_000, baselines }
    )
  })
  tally.requests += session.log.length
  if (typeof own === "object") return failureAfterSequences(settings, "GET /v1/usage after every sequence", own)
  if (own !== undefined) tally.warnings.push(`usage is not checked through GET ${settings.publicPrefix}/usage: ${own}`)
  return undefined
}

/** Every accepted message delivered to its account's endpoint, signed (see `WebhookCheck`). */
export const checkWebhookDeliveries = async (
  { session, settings, tally }: AfterRun,
  ledger: WebhookLedger,
  receiver: WebhookReceiver
): Promise<ConformanceFailure | undefined> => {
  const deliveries = await outsideSequences(session, async () => {
    tally.webhooks = await checkDeliveries(session, ledger, receiver, { waitMs: settings.options.webhookWaitMs ?? 30_000 })
    return undefined
  })
  return typeof deliveries === "object"
    ? failureAfterSequences(settings, "the webhook deliveries after every sequence", deliveries)
    : undefined
}
