/**
 * A message (`/console/messages/{id}`): the message itself (found among its account's messages,
 * when the link names the account: the admin API reads messages by account), every delivery
 * attempt (`GET /admin/v1/messages/{id}/attempts`), and replay.
 */
import { useState } from "preact/hooks"
import { get, messageOf, request } from "../api.js"
import { ErrorText } from "../components/ErrorText.js"
import { Link } from "../components/Link.js"
import { useLoad } from "../components/useLoad.js"
import { time } from "../format.js"
import { nextCursor } from "../links.js"
import { accountPath } from "../router.js"
import type { Attempt, Message } from "../types.js"

/** Props of MessagePage. */
export interface MessagePageProps {
  readonly messageId: string
  readonly accountId: string | undefined
}

/** The message among the account's (paging through them), or undefined. */
const findMessage = async (accountId: string, messageId: string): Promise<Message | undefined> => {
  let cursor: string | undefined
  do {
    const params = new URLSearchParams({ limit: "100" })
    if (cursor !== undefined) params.set("cursor", cursor)
    const answer = await request<ReadonlyArray<Message>>("GET", `/admin/v1/accounts/${encodeURIComponent(accountId)}/messages?${params}`)
    const found = answer.body.find((m) => m.id === messageId)
    if (found) return found
    cursor = nextCursor(answer.headers.get("link"))
  } while (cursor !== undefined)
  return undefined
}

/** The message page. */
export const MessagePage = ({ messageId, accountId }: MessagePageProps) => {
  const message = useLoad(() => accountId === undefined ? Promise.resolve(undefined) : findMessage(accountId, messageId), [messageId, accountId])
  const attempts = useLoad(() => get<ReadonlyArray<Attempt>>(`/admin/v1/messages/${encodeURIComponent(messageId)}/attempts`), [messageId])
  const [error, setError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const m = message.value
  return (
    <section>
      <h1>{`Message ${messageId}`}</h1>
      {accountId !== undefined ? <p>Account <Link href={accountPath(accountId)}>{accountId}</Link></p> : null}
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
