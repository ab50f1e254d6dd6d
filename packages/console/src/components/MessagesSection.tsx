/**
 * An account's messages (`GET /admin/v1/accounts/{id}/messages`), a page at a time, with their
 * delivery status; replay one; replay every failure since a time (ReplayFailures).
 */
import { useState } from "preact/hooks"
import { messageOf, request } from "../api.js"
import { time } from "../format.js"
import { nextCursor } from "../links.js"
import { messagePath } from "../router.js"
import type { Message } from "../types.js"
import { ErrorText } from "./ErrorText.js"
import { Link } from "./Link.js"
import { ReplayFailures } from "./ReplayFailures.js"
import { useLoad } from "./useLoad.js"

const listPath = (accountId: string, status: string, cursor: string | undefined) => {
  const params = new URLSearchParams({ limit: "20" })
  if (status !== "") params.set("status", status)
  if (cursor !== undefined) params.set("cursor", cursor)
  return `/admin/v1/accounts/${encodeURIComponent(accountId)}/messages?${params}`
}

/** The messages section. */
export const MessagesSection = ({ accountId }: { readonly accountId: string }) => {
  const [status, setStatus] = useState("")
  const [cursor, setCursor] = useState<string | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const page = useLoad(async () => {
    const answer = await request<ReadonlyArray<Message>>("GET", listPath(accountId, status, cursor))
    return { messages: answer.body, next: nextCursor(answer.headers.get("link")) }
  }, [accountId, status, cursor])
  const replay = (id: string) =>
    request("POST", `/admin/v1/messages/${encodeURIComponent(id)}/replay`).then(() => {
      setError(undefined)
      setNotice(`Message ${id} queued again.`)
      page.reload()
    }, (failed) => setError(messageOf(failed)))
  return (
    <section aria-labelledby="messages">
      <h2 id="messages">Messages</h2>
      <label for="message-status">Status</label>
      <select id="message-status" value={status} onChange={(event) => {
        setCursor(undefined)
        setStatus(event.currentTarget.value)
      }}>
        <option value="">any</option>
        {["queued", "processing", "delivered", "failed"].map((s) => <option key={s} value={s}>{s}</option>)}
      </select>
      <button type="button" onClick={page.reload}>Refresh</button>
      <ErrorText error={page.error} />
      {page.value
        ? (
          <table id="messages-table">
            <thead>
              <tr><th scope="col">Message</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Updated</th><th scope="col">Last error</th><th scope="col">Replay</th></tr>
            </thead>
            <tbody>
              {page.value.messages.map((m) => (
                <tr key={m.id} data-message-id={m.id}>
                  <td><Link href={messagePath(m.id)}>{m.id}</Link></td>
                  <td data-field="status">{m.status}</td>
                  <td>{m.attempts}</td>
                  <td>{time(m.updatedAt)}</td>
                  <td>{m.lastError ?? "—"}</td>
                  <td><button type="button" aria-label={`Replay ${m.id}`} onClick={() => replay(m.id)}>Replay</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        )
        : null}
      {page.value?.messages.length === 0 ? <p>No messages.</p> : null}
      <p class="paging">
        {cursor !== undefined ? <button type="button" onClick={() => setCursor(undefined)}>First page</button> : null}
        {page.value?.next !== undefined ? <button type="button" onClick={() => setCursor(page.value!.next)}>Next page</button> : null}
      </p>
      <ErrorText error={error} />
      {notice !== undefined ? <p role="status">{notice}</p> : null}
      <ReplayFailures accountId={accountId} onReplayed={page.reload} />
    </section>
  )
}
