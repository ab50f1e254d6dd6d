// The console's placeholder page: says where it is; the console's UI replaces it.
import "./main.css"

const app = document.getElementById("app")
if (app !== null) {
  const heading = document.createElement("h1")
  heading.textContent = "Pet Store console"
  const text = document.createElement("p")
  text.textContent = `Page ${location.pathname}`
  app.append(heading, text)
}
