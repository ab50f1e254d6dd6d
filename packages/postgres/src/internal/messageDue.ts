/**
 * The instant a pending message may be claimed: a queued one's availability, a claimed one's lease
 * end. The expression of index `messages_due` (migration 10, which writes it out), repeated exactly
 * by the statements that read that index: the planner uses an expression index only for the same expression.
 */
export const MESSAGE_DUE = "CASE WHEN status = 'queued' THEN available_at ELSE lease_until END"
