/**
 * Replays every message of an account that failed since a time
 * (`POST /admin/v1/accounts/{id}/webhook/replay`), then follows them (`useReplayProgress`) until
 * each is delivered or failed again, showing how many are done.
 */
import { useState } from "preact/hooks"
import { messageOf, request } from "../api.js"
import { ErrorText } from "./ErrorText.js"
import { useReplayProgress } from "./useReplayProgress.js"

/** Props of ReplayFailures. */
export interface ReplayFailuresProps {
  readonly accountId: string
  readonly onReplayed: () => void
}

/** A `datetime-local` value read as UTC, as ISO 8601. */
const utc = (local: string): string => new Date(`${local.length === 16 ? `${local}:00` : local}Z`).toISOString()

/** The replay form and its progress. */
export const ReplayFailures = ({ accountId, onReplayed }: ReplayFailuresProps) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const [replayed, setReplayed] = useState<ReadonlyArray<string> | undefined>(undefined)
  const progress = useReplayProgress(accountId, replayed, onReplayed)
  return (
    <div class="replay">
      <h3>Replay failures</h3>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          const since = String(new FormData(event.currentTarget).get("since") ?? "")
          request<{ readonly replayed: ReadonlyArray<string> }>(
            "POST", `/admin/v1/accounts/${encodeURIComponent(accountId)}/webhook/replay`, { since: utc(since) }
          ).then((answer) => {
            setError(undefined)
            setReplayed(answer.body.replayed)
          }, (failed) => setError(messageOf(failed)))
        }}
      >
        <label for="replay-since">Failed since (UTC)</label>
        <input id="replay-since" name="since" type="datetime-local" step="1" required />
        <button type="submit">Replay failures</button>
      </form>
      <ErrorText error={error} />
      {replayed !== undefined
        ? (
          <div role="status" id="replay-progress">
            <p>{`${replayed.length} messages queued again; ${progress.done} of ${replayed.length} done (${progress.delivered} delivered, ${progress.failed} failed).`}</p>
            <progress max={Math.max(1, replayed.length)} value={progress.done} aria-label="Replay progress" />
          </div>
        )
        : null}
    </div>
  )
}
