/** Reading the audit log for a payment (the operator's view of a payment shows what operators did to it). */
import type { Sql } from './database.ts';

export type { AuditRecord } from './audit-repo.ts';
import type { AuditRecord } from './audit-repo.ts';

interface AuditRow {
  id: string;
  at: Date;
  user_id: string | null;
  user_name: string;
  action: string;
  object_type: string;
  object_id: string;
  before: unknown;
  after: unknown;
  details: unknown;
}

/** The entries about a payment and about its callbacks (resends), oldest first (index audit_log_object). */
export async function auditEntriesOfPayment(sql: Sql, paymentId: string, callbackIds: readonly string[], limit = 1000): Promise<AuditRecord[]> {
  const rows = await sql.query<AuditRow>(
    `SELECT * FROM audit_log
     WHERE (object_type = 'payment' AND object_id = $1) OR (object_type = 'callback' AND object_id = ANY($2::text[]))
     ORDER BY at DESC, id DESC LIMIT $3`,
    [paymentId, callbackIds, limit],
  );
  return rows.reverse().map((r) => ({
    id: r.id, at: new Date(r.at), userId: r.user_id, userName: r.user_name, action: r.action,
    objectType: r.object_type, objectId: r.object_id, before: r.before, after: r.after, details: r.details,
  }));
}
