/**
 * The dashboard (`/console`): requests per hour over the last 24 h by outcome, stacked
 * (`GET /admin/v1/usage`); the top accounts by total and by refused (`GET /admin/v1/usage/top`);
 * the readiness of each dependency (`GET /admin/v1/health`).
 */
import { get } from "../api.js"
import { Chart } from "../components/Chart.js"
import { ErrorText } from "../components/ErrorText.js"
import { HealthList } from "../components/HealthList.js"
import { TopAccounts } from "../components/TopAccounts.js"
import { useLoad } from "../components/useLoad.js"
import { type Bucket, outcomeSeries } from "../outcomes.js"

interface Usage {
  readonly buckets: ReadonlyArray<Bucket>
}

/** The dashboard page. */
export const DashboardPage = () => {
  const usage = useLoad(() => get<Usage>("/admin/v1/usage?granularity=hour"), [])
  return (
    <section>
      <h1>Dashboard</h1>
      <h2>Requests per hour, last 24 hours</h2>
      <ErrorText error={usage.error} />
      {usage.value
        ? <Chart id="usage-all" title="Requests per hour by outcome" stacked starts={usage.value.buckets.map((b) => b.start)} series={outcomeSeries(usage.value.buckets)} />
        : null}
      <div class="columns">
        <TopAccounts by="total" title="Top accounts by requests" />
        <TopAccounts by="refused" title="Top accounts by refused requests" />
      </div>
      <HealthList />
    </section>
  )
}
