/** A plan's select and, for enterprise, its per-minute and per-day limits (form fields `plan`, `perMinute`, `perDay`). */
import { PLANS } from "../types.js"

/** Props of PlanFields. */
export interface PlanFieldsProps {
  /** The prefix of the fields' ids (two forms on a page). */
  readonly id: string
  readonly plan: string
  readonly onPlan: (plan: string) => void
  readonly limits?: { readonly perMinute: number; readonly perDay: number } | undefined
}

/** The limits a form's fields name (enterprise), or none. */
export const limitsOf = (data: FormData, plan: string) =>
  plan === "enterprise" ? { limits: { perMinute: Number(data.get("perMinute")), perDay: Number(data.get("perDay")) } } : {}

/** The plan and limits fields. */
export const PlanFields = ({ id, plan, onPlan, limits }: PlanFieldsProps) => (
  <>
    <label for={`${id}-plan`}>Plan</label>
    <select id={`${id}-plan`} name="plan" value={plan} onChange={(event) => onPlan(event.currentTarget.value)}>
      {PLANS.map((p) => <option key={p} value={p}>{p}</option>)}
    </select>
    {plan === "enterprise"
      ? (
        <>
          <label for={`${id}-per-minute`}>Requests per minute</label>
          <input id={`${id}-per-minute`} name="perMinute" type="number" min="1" required defaultValue={limits ? String(limits.perMinute) : ""} />
          <label for={`${id}-per-day`}>Requests per day</label>
          <input id={`${id}-per-day`} name="perDay" type="number" min="1" required defaultValue={limits ? String(limits.perDay) : ""} />
        </>
      )
      : null}
  </>
)
