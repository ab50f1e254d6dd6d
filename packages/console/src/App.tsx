/**
 * The console: recovers the session (a reload keeps it: the cookie is still there, the CSRF token
 * is asked for again), then shows the sign-in form or the page the path names.
 */
import { useEffect, useState } from "preact/hooks"
import { SIGNED_OUT } from "./api.js"
import { Layout } from "./components/Layout.js"
import { AccountPage } from "./pages/AccountPage.js"
import { AccountsPage } from "./pages/AccountsPage.js"
import { DashboardPage } from "./pages/DashboardPage.js"
import { MessagePage } from "./pages/MessagePage.js"
import { SignInPage } from "./pages/SignInPage.js"
import { type Route, useRoute } from "./router.js"
import { recover } from "./session.js"

type State = "checking" | "signedOut" | "signedIn"

const page = (route: Route) => {
  switch (route.page) {
    case "dashboard":
      return <DashboardPage />
    case "accounts":
      return <AccountsPage query={route.query} />
    case "account":
      return <AccountPage key={route.accountId} accountId={route.accountId} />
    case "message":
      return <MessagePage key={route.messageId} messageId={route.messageId} />
    case "notFound":
      return (
        <section>
          <h1>Not found</h1>
          <p>{`No console page at ${route.path}.`}</p>
        </section>
      )
  }
}

const titles: Record<Route["page"], string> = {
  dashboard: "Dashboard",
  accounts: "Accounts",
  account: "Account",
  message: "Message",
  notFound: "Not found"
}

/** The console's root component. */
export const App = () => {
  const route = useRoute()
  const [state, setState] = useState<State>("checking")
  useEffect(() => {
    recover().then((signedIn) => setState(signedIn ? "signedIn" : "signedOut"), () => setState("signedOut"))
    const signedOut = () => setState("signedOut")
    window.addEventListener(SIGNED_OUT, signedOut)
    return () => window.removeEventListener(SIGNED_OUT, signedOut)
  }, [])
  useEffect(() => {
    document.title = state === "signedIn" ? `${titles[route.page]} · Pet Store console` : "Sign in · Pet Store console"
  }, [state, route.page])
  if (state === "checking") return <main id="main"><p>Loading…</p></main>
  if (state === "signedOut") return <SignInPage onSignedIn={() => setState("signedIn")} />
  return <Layout onSignedOut={() => setState("signedOut")}>{page(route)}</Layout>
}
