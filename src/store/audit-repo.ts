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
  /** The merchant whose business the entry is about (the merchant's own audit log in the portal lists it). */
  merchantId?: string;
  /** The merchant group whose business the entry is about (a group's users). */
  merchantGroupId?: string;
}

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));

/** Appends one entry; call it in the same transaction as the change it records. */
export async function appendAudit(sql: Sql, entry: AuditEntry, at: Date): Promise<string> {
  const id = newId();
  await sql.query(
    `INSERT INTO audit_log (id, at, user_id, user_name, action, object_type, object_id, before, after, details, merchant_id, merchant_group_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11, $12)`,
    [id, at.toISOString(), entry.actor.userId, entry.actor.name, entry.action, entry.objectType, entry.objectId,
      json(entry.before), json(entry.after), json(entry.details), entry.merchantId ?? null, entry.merchantGroupId ?? null],
  );
  return id;
}

export interface AuditRecord {
  id: string;
  at: Date;
  userId: string | null;
  userName: string;
  action: string;
  objectType: string;
  objectId: string;
  before: unknown;
  after: unknown;
  details: unknown;
}

export interface AuditFilter {
  userId?: string;
  action?: string;
  objectType?: string;
  objectId?: string;
  /** Inclusive lower bound. */
  from?: Date;
  /** Exclusive upper bound. */
  to?: Date;
  /** The last entry of the previous page (at ISO text, id): entries strictly older come next. */
  after?: readonly [string, string];
  limit: number;
  /** The portal's scope: entries about one of these merchants or this group, nothing else. */
  merchantScope?: { merchantIds: readonly string[]; groupId: string | null };
  /**
   * Issue 25, item 26: test: entries about a test key's (sandbox) merchant only; live: every other entry (live
   * merchants' and the platform's own: users, tokens, settings).
   */
  mode?: 'test' | 'live';
}

/**
 * The merchant an entry is about: the one it names, else its object's (a merchant, a payment, a MID, a dispute,
 * a callback); null for the platform's own objects.
 */
const ENTRY_MERCHANT = `COALESCE(audit_log.merchant_id, CASE audit_log.object_type
  WHEN 'merchant' THEN audit_log.object_id
  WHEN 'payment' THEN (SELECT p.merchant_id FROM payments p WHERE p.id = audit_log.object_id)
  WHEN 'mid' THEN (SELECT m.merchant_id FROM mids m WHERE m.id = audit_log.object_id)
  WHEN 'dispute' THEN (SELECT d.merchant_id FROM disputes d WHERE d.id = audit_log.object_id)
  WHEN 'callback' THEN (SELECT c.merchant_id FROM callbacks c WHERE c.id = audit_log.object_id) END)`;

/** Newest first, by (at, id) so that paging is stable among entries of the same millisecond. */
export async function listAudit(sql: Sql, f: AuditFilter): Promise<AuditRecord[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (f.userId !== undefined) add((p) => `user_id = ${p}`, f.userId);
  if (f.action !== undefined) add((p) => `action = ${p}`, f.action);
  if (f.objectType !== undefined) add((p) => `object_type = ${p}`, f.objectType);
  if (f.objectId !== undefined) add((p) => `object_id = ${p}`, f.objectId);
  if (f.from !== undefined) add((p) => `at >= ${p}`, f.from.toISOString());
  if (f.to !== undefined) add((p) => `at < ${p}`, f.to.toISOString());
  if (f.merchantScope !== undefined) {
    params.push([...f.merchantScope.merchantIds], f.merchantScope.groupId);
    where.push(`(merchant_id = ANY($${params.length - 1}::text[]) OR merchant_group_id = $${params.length})`);
  }
  if (f.mode !== undefined) where.push(`${f.mode === 'test' ? '' : 'NOT '}EXISTS (SELECT 1 FROM merchants s WHERE s.sandbox AND s.id = ${ENTRY_MERCHANT})`);
  if (f.after !== undefined) {
    params.push(f.after[0], f.after[1]);
    where.push(`(at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(f.limit);
  const rows = await sql.query<{
    id: string; at: Date; user_id: string | null; user_name: string; action: string; object_type: string; object_id: string;
    before: unknown; after: unknown; details: unknown;
  }>(
    `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => ({
    id: r.id, at: new Date(r.at), userId: r.user_id, userName: r.user_name, action: r.action, objectType: r.object_type,
    objectId: r.object_id, before: r.before ?? null, after: r.after ?? null, details: r.details ?? null,
  }));
}
