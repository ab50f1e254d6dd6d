/** The frame of every signed-in page: a skip link, the navigation, sign-out, and the page. */
import type { ComponentChildren } from "preact"
import { signOut } from "../session.js"
import { Link } from "./Link.js"

/** Props of Layout. */
export interface LayoutProps {
  readonly children: ComponentChildren
  readonly onSignedOut: () => void
}

/** The header, navigation and main region. */
export const Layout = ({ children, onSignedOut }: LayoutProps) => (
  <>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">Pet Store console</span>
      <nav aria-label="Console">
        <Link href="/console">Dashboard</Link>
        <Link href="/console/accounts">Accounts</Link>
      </nav>
      <button type="button" onClick={() => signOut().finally(onSignedOut)}>Sign out</button>
    </header>
    <main id="main" tabIndex={-1}>{children}</main>
  </>
)
