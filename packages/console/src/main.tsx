/** The console's entry: its styles, and the App rendered into the shell's `#app` (or its body). */
import "./console.css"
import { render } from "preact"
import { App } from "./App.js"

render(<App />, document.getElementById("app") ?? document.body)
