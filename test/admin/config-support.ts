/** What an operator's script does against the admin API: Bearer tokens per role and JSON requests. */
import type { TestGateway, TestMerchant } from '../support/gateway.ts';
import type { Role } from '../../src/domain/admin-roles.ts';
import { insertOperatorUser } from '../../src/store/operators-repo.ts';
import { issueOperatorToken } from '../../src/services/operators.ts';
import { newId } from '../../src/domain/ids.ts';
import { readAnswer } from '../support/answer.ts';

export interface AdminAnswer {
  status: number;
  body: any;
  text: string;
}

/** A user of `role` with a fresh token, made as the admin API's user routes would. */
export async function tokenFor(t: TestGateway, role: Role): Promise<string> {
  const userId = newId();
  await insertOperatorUser(t.store.db, { id: userId, email: `${role}-${userId}@example.com`, name: role, role });
  return (await issueOperatorToken(t.store.db, userId, 'test')).token;
}

/** One admin API request; `body` as a string is sent as it is (malformed JSON tests). */
export async function adminCall(baseUrl: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<AdminAnswer> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return readAnswer(res);
}

/** Asserts nothing but the D3 error shape and returns its messages. */
export function d3Messages(answer: AdminAnswer): string[] {
  const b = answer.body;
  if (!b || typeof b.http_code !== 'number' || b.http_code !== answer.status || typeof b.error_code !== 'string' || typeof b.error_message !== 'string') {
    throw new Error(`expected a D3 error body, got ${answer.status} ${answer.text}`);
  }
  return (b.errors ?? []).map((e: { error_message: string }) => e.error_message);
}

/** A sandbox MID of a routing test: its priority fixes the default order; `decline` forces that unified code. */
export type MidSpec = { id: string; priority: number; decline?: string };

/** A merchant with sandbox MIDs of fixed priorities (and a forced decline code where given). */
export async function merchantWith(t: TestGateway, specs: MidSpec[], notificationUrl = 'http://127.0.0.1:9/callbacks'): Promise<TestMerchant> {
  const m = await t.addMerchant({
    notificationUrl,
    mids: specs.map((s) => ({ id: s.id, paymentMode: 'SMS/DMS' as const, settings: s.decline ? { force_decline_code: s.decline } : {} })),
  });
  for (const s of specs) await t.store.db.query('UPDATE mids SET priority = $2 WHERE id = $1', [s.id, s.priority]);
  t.gateway.ctx.merchants.invalidate();
  return m;
}
