/**
 * The audit log (issue 11): every configuration change and every operator money action, appended with who,
 * when, what and the values before and after. Append-only: the table's triggers refuse UPDATE, DELETE and
 * TRUNCATE. Writers mask secrets before they get here (sealed-secrets.ts maskSecretFields).
 */
import type { Sql } from './database.ts';
import { newId } from '../domain/ids.ts';

export interface AuditActor {
  /** Null for actions of the system itself (the command-line tool's bootstrap, migrations). */
  userId: string | null;
  name: string;
}

export interface AuditEntry {
  actor: AuditActor;
  /** What was done, `<object>.<verb>`: merchant.create, mid.update, payment.refund, ... */
  action: string;
  objectType: string;
  objectId: string;
  before?: unknown;
  after?: unknown;
  details?: unknown;
}

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));

/** Appends one entry; call it in the same transaction as the change it records. */
export async function appendAudit(sql: Sql, entry: AuditEntry, at: Date): Promise<string> {
  const id = newId();
  await sql.query(
    `INSERT INTO audit_log (id, at, user_id, user_name, action, object_type, object_id, before, after, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb)`,
    [id, at.toISOString(), entry.actor.userId, entry.actor.name, entry.action, entry.objectType, entry.objectId,
      json(entry.before), json(entry.after), json(entry.details)],
  );
  return id;
}
