/**
 * Runs the model-based conformance suite against a server at a base URL: fetches and checks the
 * OpenAPI document, then runs random command sequences (fast-check `commands` + `asyncModelRun`)
 * and, on a failure, shrinks it to the shortest sequence and prints it as curl commands. The steps,
 * in order: `ServedDocument`, the session's set-up, the checks before the sequences (usage
 * baselines, the inventory's start), `Sequences`, `AfterSequences`, the verdict.
 *
 * @since 1.0.0
 */
import * as AfterSequences from "./AfterSequences.js"
import { now } from "./HttpExchange.js"
import { recordPreexisting } from "./Inventory.js"
import { Model } from "./Model.js"
import { outsideSequences } from "./OutsideSequences.js"
import * as OwnUsageCheck from "./OwnUsageCheck.js"
import { type ConformanceOptions, type RunSettings, settingsOf } from "./RunOptions.js"
import { type ConformanceFailure, type ConformanceReport, failedBeforeSequences, type RunTally } from "./RunReport.js"
import { runSequences, type SequencesOutcome } from "./Sequences.js"
import { checkServedDocument } from "./ServedDocument.js"
import { replayPathOf } from "./Replay.js"
import { Session } from "./Session.js"
import { ConformanceViolation } from "./Violation.js"
import { WebhookLedger } from "./WebhookLedger.js"
import { type ReceiverAddress, WebhookReceiver } from "./WebhookReceiver.js"

export { type ConformanceOptions, parseKey, PLAN_LIMITS } from "./RunOptions.js"
export { type ConformanceFailure, type ConformanceReport, formatReport } from "./RunReport.js"

/**
 * Runs the suite; never throws for a non-conforming server (see `report.failure`).
 *
 * @example
 * ```ts
 * import { formatReport, runConformance } from "@petstore/testkit/conformance"
 *
 * const report = await runConformance({ baseUrl: "http://127.0.0.1:3000", adminToken: process.env.PETSTORE_ADMIN_TOKEN, numRuns: 100 })
 * console.log(formatReport(report))
 * process.exitCode = report.ok ? 0 : 1
 * ```
 *
 * @category runners
 */
export const runConformance = async (options: ConformanceOptions): Promise<ConformanceReport> => {
  const settings = settingsOf(options)
  let receiver: WebhookReceiver | undefined
  try {
    const messagesPrefix = options.messagesPrefix ?? settings.publicPrefix
    const document = await checkServedDocument(settings, messagesPrefix)
    if ("ok" in document) return document
    const tally: RunTally = { requests: 0, warnings: document.warnings, webhooks: undefined }
    const ledger = new WebhookLedger()
    if (settings.withReceiver) {
      receiver = await WebhookReceiver.start(ledger.verify, options.webhookReceiver === true ? {} : options.webhookReceiver as ReceiverAddress)
      settings.log(`webhook receiver at ${receiver.origin}`)
    }
    const model = new Model(settings.expect, performance.now())
    const session = new Session({
      clients: settings.clients,
      checker: document.checker,
      model,
      publicPrefix: settings.publicPrefix,
      messagesPrefix,
      adminToken: options.adminToken,
      givenKeys: options.keys ?? [],
      webhooks: receiver === undefined ? undefined : { receiver, ledger }
    })
    const before = await beforeSequences(settings, session, model, tally)
    if ("ok" in before) return before
    const sequences = await runSequences(settings, session, model, tally)
    const report = (failure?: ConformanceFailure) => reportOf(settings, session, tally, sequences, failure)
    const afterRun = { settings, session, model, tally }
    const { details, stoppedEarly } = sequences
    const passedSoFar = !details.failed || stoppedEarly !== undefined
    if (!details.failed && settings.clients.length > 1) {
      const failure = await AfterSequences.checkKeyedCreatesAcrossInstances(afterRun)
      if (failure !== undefined) return report(failure)
    }
    if (passedSoFar && before.inventory === undefined) {
      const failure = await AfterSequences.checkInventory(afterRun) ??
        (options.adminToken === undefined ? undefined : await AfterSequences.checkAdminUsage(afterRun)) ??
        await AfterSequences.checkOwnUsage(afterRun, before.usageBaselines)
      if (failure !== undefined) return report(failure)
    }
    if (passedSoFar && receiver !== undefined) {
      const failure = await AfterSequences.checkWebhookDeliveries(afterRun, ledger, receiver)
      if (failure !== undefined) return report(failure)
    }
    return verdict(settings, tally, sequences, report)
  } finally {
    for (const c of settings.clients) c.close()
    await receiver?.close()
  }
}

/** Where the run stands after its checks before the sequences, or the report of a run that stops there. */
interface BeforeSequences {
  /** Why the inventory is not taken (then not at the end either); undefined: it is. */
  readonly inventory: string | undefined
  readonly usageBaselines: OwnUsageCheck.Baselines | string | undefined
}

/**
 * The checker's own account (and its webhook endpoint), what keys given by hand had used before the
 * run (subtracted at the end), and the pets the server holds before it.
 */
const beforeSequences = async (
  settings: RunSettings,
  session: Session,
  model: Model,
  tally: RunTally
): Promise<BeforeSequences | ConformanceReport> => {
  const failed = (message: string, curl?: string) => failedBeforeSequences(settings, message, curl)
  // Setting up the checker's own account (and its webhook endpoint) can meet a violation too.
  const prepared = await outsideSequences(session, async () => {
    await session.prepare()
    return undefined
  })
  if (typeof prepared === "object") return failed(prepared.message, prepared.curl)
  let usageBaselines: OwnUsageCheck.Baselines | string | undefined
  if (settings.options.adminToken === undefined) {
    usageBaselines = OwnUsageCheck.notInDocument(session)
    if (usageBaselines === undefined) {
      session.usage.note(model.accounts)
      session.startPhase()
      try {
        usageBaselines = await OwnUsageCheck.readBaselines(session.usage, OwnUsageCheck.readThrough(session), (k, at) => model.toldToWait(k, at), now)
      } catch (error) {
        if (!(error instanceof ConformanceViolation)) throw error
        return failed(error.message, session.curlScript())
      }
      tally.requests += session.log.length
    }
  }
  const inventory = await outsideSequences(session, () => recordPreexisting(model, session))
  tally.requests += session.log.length
  if (typeof inventory === "object") return failed(inventory.message, inventory.curl)
  if (inventory !== undefined) tally.warnings.push(`the inventory is not taken: ${inventory}`)
  return { inventory, usageBaselines }
}

const reportOf = (
  settings: RunSettings,
  session: Session,
  tally: RunTally,
  { details, stoppedEarly }: SequencesOutcome,
  failure?: ConformanceFailure
): ConformanceReport => ({
  ok: failure === undefined,
  runs: details.numRuns,
  seed: settings.seed,
  durationMs: Date.now() - settings.started,
  requests: tally.requests,
  warnings: tally.warnings,
  answers: Object.fromEntries([...session.answers].sort(([a], [b]) => a.localeCompare(b))),
  ...(stoppedEarly === undefined ? {} : { stoppedEarly }),
  ...(tally.webhooks === undefined ? {} : { webhooks: tally.webhooks }),
  ...(failure === undefined ? {} : { failure })
})

/** The run's verdict once every check passed: too few sequences, a pass, or the shrunk failing sequence. */
const verdict = (
  settings: RunSettings,
  tally: RunTally,
  { details, lastFailure, stoppedEarly }: SequencesOutcome,
  report: (failure?: ConformanceFailure) => ConformanceReport
): ConformanceReport => {
  const { minRuns, replay } = settings
  if (stoppedEarly !== undefined && details.numRuns < Math.max(minRuns, 1)) {
    const message = `${stoppedEarly}, fewer than the minimum of ${Math.max(minRuns, 1)}: too few to trust a pass (raise the time limit or look at why the server is slow)`
    return report({ message, commands: "", curl: "", shrinks: 0, replay: replay() })
  }
  if (!details.failed || stoppedEarly !== undefined) {
    settings.log(`${details.numRuns} sequences, ${tally.requests} requests, ${((Date.now() - settings.started) / 1000).toFixed(1)} s`)
    return report()
  }
  if (lastFailure === undefined) {
    return report({ message: String(details.errorInstance), commands: "", curl: "", shrinks: details.numShrinks, replay: replay() })
  }
  const counterexample = details.counterexample?.[0]
  const printed = counterexample === undefined ? "" : String(counterexample)
  return report({
    message: lastFailure.message,
    commands: printed,
    curl: lastFailure.curl,
    shrinks: details.numShrinks,
    replay: details.counterexamplePath === null
      ? replay()
      : replay({ path: details.counterexamplePath, replayPath: replayPathOf(printed) })
  })
}

export { ConformanceViolation }
