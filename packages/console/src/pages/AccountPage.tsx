/**
 * An account (`/console/accounts/{id}`): its settings and status, keys, usage, webhook endpoint
 * and messages, each a section of its own that reads and writes through `/admin/v1`.
 */
import { get } from "../api.js"
import { AccountSettings } from "../components/AccountSettings.js"
import { AccountStatus } from "../components/AccountStatus.js"
import { ErrorText } from "../components/ErrorText.js"
import { KeysSection } from "../components/KeysSection.js"
import { MessagesSection } from "../components/MessagesSection.js"
import { UsageSection } from "../components/UsageSection.js"
import { useLoad } from "../components/useLoad.js"
import { WebhookSection } from "../components/WebhookSection.js"
import { time } from "../format.js"
import type { Account } from "../types.js"

/** Props of AccountPage. */
export interface AccountPageProps {
  readonly accountId: string
}

/** The account page. */
export const AccountPage = ({ accountId }: AccountPageProps) => {
  const account = useLoad(() => get<Account>(`/admin/v1/accounts/${encodeURIComponent(accountId)}`), [accountId])
  const value = account.value
  return (
    <section>
      <h1>{value?.name ? `Account ${value.name}` : `Account ${accountId}`}</h1>
      <ErrorText error={account.error} />
      {value
        ? (
          <>
            <dl class="facts" id="account-facts">
              <dt>Id</dt><dd>{value.id}</dd>
              <dt>Name</dt><dd data-field="name">{value.name ?? "—"}</dd>
              <dt>Plan</dt><dd data-field="plan">{value.plan}</dd>
              <dt>Limits</dt><dd>{`${value.limits.perMinute} a minute, ${value.limits.perDay} a day`}</dd>
              <dt>Status</dt><dd data-field="status">{value.status}</dd>
              <dt>Created</dt><dd>{time(value.createdAt)}</dd>
            </dl>
            <AccountSettings account={value} onSaved={account.reload} />
            <AccountStatus account={value} onChanged={account.reload} />
            <KeysSection accountId={accountId} />
            <UsageSection accountId={accountId} />
            <WebhookSection accountId={accountId} />
            <MessagesSection accountId={accountId} />
          </>
        )
        : null}
    </section>
  )
}
