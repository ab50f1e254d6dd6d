/**
 * A message (`/console/messages/{id}`): the message itself and its account
 * (`GET /admin/v1/messages/{id}`), every delivery attempt (`GET /admin/v1/messages/{id}/attempts`),
 * and replay.
 */
import { useState } from "preact/hooks"
import { get, messageOf, request } from "../api.js"
import { ErrorText } from "../components/ErrorText.js"
import { Link } from "../components/Link.js"
import { useLoad } from "../components/useLoad.js"
import { time } from "../format.js"
import { accountPath } from "../router.js"
import type { AccountMessage, Attempt, Message } from "../types.js"

/** Props of MessagePage. */
export interface MessagePageProps {
  readonly messageId: string
}

/** The message page. */
export const MessagePage = ({ messageId }: MessagePageProps) => {
  const message = useLoad(() => get<AccountMessage>(`/admin/v1/messages/${encodeURIComponent(messageId)}`), [messageId])
  const attempts = useLoad(() => get<ReadonlyArray<Attempt>>(`/admin/v1/messages/${encodeURIComponent(messageId)}/attempts`), [messageId])
  const [error, setError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const m = message.value
  return (
    <section>
      <h1>{`Message ${messageId}`}</h1>
      {m ? <p>Account <Link href={accountPath(m.accountId)}>{m.accountId}</Link></p> : null}
      <ErrorText error={message.error} />
      {m
        ? (
          <dl class="facts" id="message-facts">
            <dt>Status</dt><dd data-field="status">{m.status}</dd>
            <dt>Message</dt><dd><pre>{m.message}</pre></dd>
            <dt>Attempts</dt><dd>{m.attempts}</dd>
            <dt>Created</dt><dd>{time(m.createdAt)}</dd>
            <dt>Updated</dt><dd>{time(m.updatedAt)}</dd>
            <dt>Last error</dt><dd>{m.lastError ?? "—"}</dd>
          </dl>
        )
        : null}
      <button
        type="button"
        onClick={() => request<Message>("POST", `/admin/v1/messages/${encodeURIComponent(messageId)}/replay`).then(() => {
          setError(undefined)
          setNotice("Queued again for one more attempt.")
          message.reload()
          attempts.reload()
        }, (failed) => setError(messageOf(failed)))}
      >
        Replay
      </button>
      <ErrorText error={error} />
      {notice !== undefined ? <p role="status">{notice}</p> : null}
      <h2>Attempts</h2>
      <ErrorText error={attempts.error} />
      {attempts.value
        ? (
          <table id="attempts">
            <thead>
              <tr><th scope="col">Attempt</th><th scope="col">URL</th><th scope="col">Started</th><th scope="col">Duration (ms)</th><th scope="col">Status</th><th scope="col">Error</th></tr>
            </thead>
            <tbody>
              {attempts.value.map((a) => (
                <tr key={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>{a.url}</td>
                  <td>{time(a.startedAt)}</td>
                  <td>{a.durationMs}</td>
                  <td>{a.statusCode ?? "—"}</td>
                  <td>{a.error ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
        : null}
      {attempts.value?.length === 0 ? <p>No attempt yet.</p> : null}
    </section>
  )
}
