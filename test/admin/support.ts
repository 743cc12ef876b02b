/** Speaking to the admin API as an operator's script would: JSON over HTTP with a Bearer token. */
import { insertOperatorUser } from '../../src/store/operators-repo.ts';
import { issueOperatorToken } from '../../src/services/operators.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Role } from '../../src/domain/admin-roles.ts';
import type { TestGateway } from '../support/gateway.ts';
import { readAnswer } from '../support/answer.ts';

export interface AdminAnswer {
  status: number;
  body: any;
  text: string;
}

export type AdminCall = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<AdminAnswer>;

/** A client for the admin API with one token; `body` strings go as they are (for malformed JSON). */
export function adminClient(baseUrl: string, token: string | undefined): AdminCall {
  return async (method, path, body, headers = {}) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return readAnswer(res);
  };
}

/** A user of `role` with one token, written straight to the store (the API's own creation is tested apart). */
export async function operatorWithRole(t: TestGateway, role: Role): Promise<{ userId: string; token: string; call: AdminCall }> {
  const userId = newId();
  await insertOperatorUser(t.store.db, { id: userId, email: `${role}-${userId}@example.com`, name: `${role} user`, role });
  const { token } = await issueOperatorToken(t.store.db, userId, 'test');
  return { userId, token, call: adminClient(t.baseUrl, token) };
}

export const D3_FORBIDDEN = { http_code: 403, error_code: '100000', error_message: 'Authorization: Your role does not permit this action.' };
export const D3_UNAUTHORIZED = { http_code: 401, error_code: '100000', error_message: 'Authorization: Operator token is not valid.' };
export const D3_NOT_FOUND = { http_code: 404, error_code: '100000', error_message: 'Not found.' };

/** The D3 validation body's field messages, "<field>: <message>". */
export const fieldErrors = (body: any): string[] => (body?.errors ?? []).map((e: { error_message: string }) => e.error_message);
