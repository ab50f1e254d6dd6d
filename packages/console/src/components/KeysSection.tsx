/**
 * An account's keys (`GET /admin/v1/accounts/{id}/keys`): their state, expiry and successor;
 * create one (shown once), rotate one (its successor shown once; a second rotation's 409 message
 * shown), revoke one after a confirmation.
 */
import { useState } from "preact/hooks"
import { get, messageOf, request } from "../api.js"
import { time } from "../format.js"
import type { IssuedKey, Key } from "../types.js"
import { ConfirmButton } from "./ConfirmButton.js"
import { ErrorText } from "./ErrorText.js"
import { ShownOnce } from "./ShownOnce.js"
import { useLoad } from "./useLoad.js"

/** Props of KeysSection. */
export interface KeysSectionProps {
  readonly accountId: string
}

/** The keys section. */
export const KeysSection = ({ accountId }: KeysSectionProps) => {
  const keys = useLoad(() => get<ReadonlyArray<Key>>(`/admin/v1/accounts/${encodeURIComponent(accountId)}/keys`), [accountId])
  const [error, setError] = useState<string | undefined>(undefined)
  const [issued, setIssued] = useState<{ readonly label: string; readonly key: IssuedKey } | undefined>(undefined)
  const act = (label: string, method: string, path: string) =>
    request<IssuedKey | undefined>(method, path).then((answer) => {
      setError(undefined)
      setIssued(answer.body ? { label, key: answer.body } : undefined)
      keys.reload()
    }, (failed) => {
      setIssued(undefined)
      setError(messageOf(failed))
    })
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">Keys</h2>
      <ErrorText error={keys.error} />
      {keys.value
        ? (
          <table id="keys-table">
            <thead>
              <tr>
                <th scope="col">Key</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Expires</th>
                <th scope="col">Revoked</th><th scope="col">Rotated to</th><th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.value.map((k) => (
                <tr key={k.id} data-key-id={k.id} data-prefix={k.prefix}>
                  <td>{`${k.prefix}… (${k.id})`}</td>
                  <td data-field="state">{k.state}</td>
                  <td>{time(k.createdAt)}</td>
                  <td>{time(k.expiresAt)}</td>
                  <td>{time(k.revokedAt)}</td>
                  <td>{k.rotatedTo ?? "—"}</td>
                  <td class="actions">
                    <button type="button" aria-label={`Rotate ${k.prefix}`} onClick={() => act(`Successor of ${k.prefix}`, "POST", `/admin/v1/keys/${encodeURIComponent(k.id)}/rotate`)}>
                      Rotate
                    </button>
                    <ConfirmButton
                      label={`Revoke ${k.prefix}`}
                      danger
                      question={`Revoke ${k.prefix}? It is refused from that moment; this cannot be undone.`}
                      onConfirm={() => act("", "DELETE", `/admin/v1/keys/${encodeURIComponent(k.id)}`)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
        : null}
      <button type="button" onClick={() => act("New API key", "POST", `/admin/v1/accounts/${encodeURIComponent(accountId)}/keys`)}>
        Create key
      </button>
      <ErrorText error={error} />
      {issued ? <ShownOnce label={issued.label} value={issued.key.key} /> : null}
    </section>
  )
}
