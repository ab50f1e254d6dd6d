/** The console's pages by path (`/console`, `/console/accounts`, `/console/accounts/{id}`, `/console/messages/{id}`) and the paths of each. */

/** A page of the console and what its path names. */
export type Route =
  | { readonly page: "dashboard" }
  | { readonly page: "accounts"; readonly query: URLSearchParams }
  | { readonly page: "account"; readonly accountId: string }
  | { readonly page: "message"; readonly messageId: string }
  | { readonly page: "notFound"; readonly path: string }

/** The route of a path and query. */
export const parse = (pathname: string, search: string): Route => {
  const path = pathname.replace(/\/+$/, "")
  const query = new URLSearchParams(search)
  if (path === "/console") return { page: "dashboard" }
  if (path === "/console/accounts") return { page: "accounts", query }
  const account = /^\/console\/accounts\/([^/]+)$/.exec(path)
  if (account) return { page: "account", accountId: decodeURIComponent(account[1]!) }
  const message = /^\/console\/messages\/([^/]+)$/.exec(path)
  // Older links carry `?account=`: the page reads the message by its id alone, so the query is ignored.
  if (message) return { page: "message", messageId: decodeURIComponent(message[1]!) }
  return { page: "notFound", path: pathname }
}

/** The path of an account's page. */
export const accountPath = (accountId: string): string => `/console/accounts/${encodeURIComponent(accountId)}`

/** The path of a message's page. */
export const messagePath = (messageId: string): string => `/console/messages/${encodeURIComponent(messageId)}`
