/**
 * The command sequences of a conformance run: fast-check draws them (`commands`), runs each
 * against the model and the session (`asyncModelRun`) and, on a failure, shrinks it.
 */
import * as fc from "fast-check"
import { commandArbitraries } from "./Commands.js"
import type { Model } from "./Model.js"
import type { RunSettings } from "./RunOptions.js"
import type { RunTally } from "./RunReport.js"
import type { Session } from "./Session.js"

/** How the sequences went: fast-check's verdict, the last failure's message and requests, and whether the time limit cut them. */
export interface SequencesOutcome {
  readonly details: fc.RunDetails<[Iterable<fc.AsyncCommand<Model, Session>>]>
  readonly lastFailure: { readonly message: string; readonly curl: string } | undefined
  readonly stoppedEarly: string | undefined
}

export const runSequences = async (
  settings: RunSettings,
  session: Session,
  model: Model,
  tally: RunTally
): Promise<SequencesOutcome> => {
  const { numRuns, options, seed, timeLimitMs } = settings
  let lastFailure: { message: string; curl: string } | undefined
  const commands = fc.commands(commandArbitraries({ admin: options.adminToken !== undefined }), {
    maxCommands: options.maxCommands ?? 40,
    ...(options.replayPath === undefined ? {} : { replayPath: options.replayPath })
  })
  // The sequence being run: a time limit ends the check without waiting for it, so the inventory
  // waits for it to end first (until then the server may hold what the model does not know yet).
  let running: Promise<unknown> = Promise.resolve()
  let sequences = 0
  const property = fc.asyncProperty(commands, (cmds) => {
    const run = runSequence(cmds)
    running = run.catch(() => undefined)
    return run
  })
  const runSequence = async (cmds: Iterable<fc.AsyncCommand<Model, Session>>) => {
    try {
      await fc.asyncModelRun(async () => {
        await session.startSequence()
        return { model, real: session }
      }, cmds)
    } catch (error) {
      lastFailure = {
        message: error instanceof Error ? error.message : String(error),
        curl: session.curlScript()
      }
      throw error
    } finally {
      tally.requests += session.log.length
      sequences++
      options.progress?.({ sequences, of: numRuns, requests: tally.requests })
    }
  }
  const details = await fc.check(property, {
    numRuns,
    seed,
    ...(options.path === undefined ? {} : { path: options.path }),
    interruptAfterTimeLimit: timeLimitMs,
    // An interrupted run is judged below against minRuns, and always said to have stopped early.
    markInterruptAsFailure: false
  })
  // fast-check marks a run interrupted before its first sequence as failed, with no counterexample.
  const stoppedEarly = details.interrupted && details.counterexample === null
    ? `stopped by the time limit (${timeLimitMs / 1000} s) after ${details.numRuns} of ${numRuns} sequences`
    : undefined
  await running
  return { details, lastFailure, stoppedEarly }
}
