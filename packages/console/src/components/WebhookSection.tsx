/**
 * An account's webhook endpoint (`/admin/v1/accounts/{id}/webhook`): its URL and state (failing
 * since, disabled and why); set it or change its URL (the signing secret shown once), rotate the
 * secret (shown once), delete it after a confirmation.
 */
import { useState } from "preact/hooks"
import { ApiError, get, messageOf, request } from "../api.js"
import { time } from "../format.js"
import { ConfirmButton } from "./ConfirmButton.js"
import { ErrorText } from "./ErrorText.js"
import { ShownOnce } from "./ShownOnce.js"
import { useLoad } from "./useLoad.js"

interface Webhook {
  readonly url: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly failingSince: string | null
  readonly disabledAt: string | null
  readonly disabledReason: string | null
  readonly previousSecretExpiresAt: string | null
  readonly secretError: string | null
}

/** The endpoint, or null when the account has none (404). */
const load = (path: string) =>
  get<Webhook>(path).catch((failed: unknown) => {
    if (failed instanceof ApiError && failed.status === 404) return null
    throw failed
  })

/** The webhook section. */
export const WebhookSection = ({ accountId }: { readonly accountId: string }) => {
  const path = `/admin/v1/accounts/${encodeURIComponent(accountId)}/webhook`
  const webhook = useLoad(() => load(path), [path])
  const [error, setError] = useState<string | undefined>(undefined)
  const [secret, setSecret] = useState<string | undefined>(undefined)
  const act = (method: string, to: string, body?: unknown) =>
    request<{ readonly secret?: string } | undefined>(method, to, body).then((answer) => {
      setError(undefined)
      setSecret(answer.body?.secret)
      webhook.reload()
    }, (failed) => setError(messageOf(failed)))
  const value = webhook.value
  return (
    <section aria-labelledby="webhook">
      <h2 id="webhook">Webhook endpoint</h2>
      <ErrorText error={webhook.error} />
      {value === null ? <p>No webhook endpoint.</p> : null}
      {value
        ? (
          <dl class="facts" id="webhook-facts">
            <dt>URL</dt><dd data-field="url">{value.url}</dd>
            <dt>Failing since</dt><dd data-field="failingSince">{time(value.failingSince)}</dd>
            <dt>Disabled</dt><dd data-field="disabledAt">{time(value.disabledAt)}</dd>
            <dt>Disabled because</dt><dd data-field="disabledReason">{value.disabledReason ?? "—"}</dd>
            <dt>Previous secret signs until</dt><dd>{time(value.previousSecretExpiresAt)}</dd>
            <dt>Signing problem</dt><dd>{value.secretError ?? "—"}</dd>
            <dt>Updated</dt><dd>{time(value.updatedAt)}</dd>
          </dl>
        )
        : null}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          act("PUT", path, { url: String(new FormData(event.currentTarget).get("url") ?? "") })
        }}
      >
        <label for="webhook-url">Endpoint URL</label>
        <input id="webhook-url" name="url" type="url" required defaultValue={value?.url ?? ""} />
        <button type="submit">Set endpoint</button>
      </form>
      {value
        ? (
          <div class="actions">
            <button type="button" onClick={() => act("POST", `${path}/rotate-secret`, {})}>Rotate secret</button>
            <ConfirmButton label="Delete endpoint" danger question="Delete the webhook endpoint? Nothing will be delivered to it any more." onConfirm={() => act("DELETE", path)} />
          </div>
        )
        : null}
      <ErrorText error={error} />
      {secret !== undefined ? <ShownOnce label="Signing secret" value={secret} /> : null}
    </section>
  )
}
