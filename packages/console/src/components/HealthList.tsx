/** The readiness of the server and of each dependency, from `GET /admin/v1/health`. */
import { get } from "../api.js"
import { ErrorText } from "./ErrorText.js"
import { useLoad } from "./useLoad.js"

interface Health {
  readonly ready: boolean
  readonly draining: boolean
  readonly dependencies: ReadonlyArray<{ readonly name: string; readonly ready: boolean; readonly error: string | null }>
}

/** The health section of the dashboard. */
export const HealthList = () => {
  const health = useLoad(() => get<Health>("/admin/v1/health"), [])
  const value = health.value
  return (
    <div>
      <h2>Dependencies</h2>
      <ErrorText error={health.error} />
      {value
        ? (
          <>
            <p>{`Server: ${value.ready ? "ready" : "not ready"}${value.draining ? ", draining" : ""}`}</p>
            <table id="health">
              <thead><tr><th scope="col">Dependency</th><th scope="col">State</th><th scope="col">Error</th></tr></thead>
              <tbody>
                {value.dependencies.map((d) => (
                  <tr key={d.name}>
                    <td>{d.name}</td>
                    <td class={d.ready ? "ok" : "bad"}>{d.ready ? "ready" : "not ready"}</td>
                    <td>{d.error ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )
        : null}
    </div>
  )
}
