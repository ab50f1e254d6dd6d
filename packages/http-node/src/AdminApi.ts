/**
 * The admin API (`/admin/v1`): accounts and keys, outside the public interface, enabled only when
 * an admin token is configured and protected by that token. Each operation is declared and handled
 * in its own module (`internal/operations/admin`), as the public ones are.
 *
 * @since 1.0.0
 */
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import type { Accounts } from "@petstore/core"
import { accountUsage } from "./internal/operations/admin/accountUsage.js"
import { adminHealth } from "./internal/operations/admin/adminHealth.js"
import { allUsage } from "./internal/operations/admin/allUsage.js"
import { ADMIN_PREFIX } from "./internal/operations/admin/adminEndpoint.js"
import { createAccount } from "./internal/operations/admin/createAccount.js"
import { createKey } from "./internal/operations/admin/createKey.js"
import { deleteWebhook } from "./internal/operations/admin/deleteWebhook.js"
import { getAccount } from "./internal/operations/admin/getAccount.js"
import { getAdminMessage } from "./internal/operations/admin/getAdminMessage.js"
import { getWebhook } from "./internal/operations/admin/getWebhook.js"
import { listAccountMessages } from "./internal/operations/admin/listAccountMessages.js"
import { listAccounts } from "./internal/operations/admin/listAccounts.js"
import { listKeys } from "./internal/operations/admin/listKeys.js"
import { listMessageAttempts } from "./internal/operations/admin/listMessageAttempts.js"
import { replayFailedMessages } from "./internal/operations/admin/replayFailedMessages.js"
import { replayMessage } from "./internal/operations/admin/replayMessage.js"
import { revokeKey } from "./internal/operations/admin/revokeKey.js"
import { rotateKey } from "./internal/operations/admin/rotateKey.js"
import { rotateWebhookSecret } from "./internal/operations/admin/rotateWebhookSecret.js"
import { setWebhook } from "./internal/operations/admin/setWebhook.js"
import { topUsage } from "./internal/operations/admin/topUsage.js"
import { updateAccount } from "./internal/operations/admin/updateAccount.js"
import type * as Operation from "./internal/operations/operation.js"

export { ADMIN_PREFIX } from "./internal/operations/admin/adminEndpoint.js"
export { AdminAccount } from "./internal/operations/admin/accounts.js"
export { ListAccountsParams } from "./internal/operations/admin/listAccounts.js"
export { UpdateAccount } from "./internal/operations/admin/updateAccount.js"
export { CreateAccount, CreatedAccount } from "./internal/operations/admin/createAccount.js"
export { IssuedKey } from "./internal/operations/admin/keys.js"
export { AdminHealth } from "./internal/operations/admin/adminHealth.js"
export { AllUsage } from "./internal/operations/admin/allUsage.js"
export { AccountMessagesParams, AdminMessage } from "./internal/operations/admin/listAccountMessages.js"
export { AdminAccountMessage } from "./internal/operations/admin/getAdminMessage.js"
export { KeyMetadata } from "./internal/operations/admin/listKeys.js"
export { WebhookAttempt } from "./internal/operations/admin/listMessageAttempts.js"
export { IssuedWebhook, WebhookEndpoint, WebhookUrl } from "./internal/operations/admin/webhooks.js"

/**
 * Every operation the admin API serves: the application serves exactly these. A new operation is
 * added here and to the group below.
 */
export const ADMIN_OPERATIONS: ReadonlyArray<Operation.Operation<any, Accounts.Accounts, Operation.AdminContext>> = [
  createAccount,
  listAccounts,
  getAccount,
  updateAccount,
  createKey,
  listKeys,
  rotateKey,
  revokeKey,
  setWebhook,
  getWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  replayFailedMessages,
  listAccountMessages,
  getAdminMessage,
  listMessageAttempts,
  replayMessage,
  accountUsage,
  topUsage,
  allUsage,
  adminHealth
]

/** The admin API's endpoints: accounts, keys, webhooks, usage and messages. */
export class AdminGroup extends HttpApiGroup.make("admin")
  .add(createAccount.endpoint)
  .add(listAccounts.endpoint)
  .add(getAccount.endpoint)
  .add(updateAccount.endpoint)
  .add(createKey.endpoint)
  .add(listKeys.endpoint)
  .add(rotateKey.endpoint)
  .add(revokeKey.endpoint)
  .add(setWebhook.endpoint)
  .add(getWebhook.endpoint)
  .add(deleteWebhook.endpoint)
  .add(rotateWebhookSecret.endpoint)
  .add(replayFailedMessages.endpoint)
  .add(listAccountMessages.endpoint)
  .add(getAdminMessage.endpoint)
  .add(listMessageAttempts.endpoint)
  .add(replayMessage.endpoint)
  .add(accountUsage.endpoint)
  .add(topUsage.endpoint)
  .add(allUsage.endpoint)
  .add(adminHealth.endpoint)
  .prefix(ADMIN_PREFIX)
{}

/** The admin API's definition, behind the admin token. */
export const AdminApi = HttpApi.make("petstore-admin").add(AdminGroup)
/** The type of the admin API's definition. */
export type AdminApi = typeof AdminApi
