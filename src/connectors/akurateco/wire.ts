/**
 * The family's S2S transport, shared by the card (akurateco.ts) and APM (apm.ts) transformers: a form POST to the
 * API's one URL, a JSON answer.
 */
import type { HttpPort } from '../http.ts';

/**
 * Posts one action; a 5xx or an answer that is not JSON throws: it says nothing about the payment (pending). So
 * does a 409 or 422 to a request sent with an idempotency key: the key's first request may be running or may have
 * taken effect, or the key was used with another body; none of it is a decline.
 */
export async function postForm(http: HttpPort, url: string, fields: URLSearchParams, timeoutMs: number, idempotencyKey?: string): Promise<Record<string, unknown>> {
  const res = await http.send({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: fields.toString(),
    timeoutMs,
  });
  if (res.status >= 500 || (idempotencyKey && (res.status === 409 || res.status === 422))) throw new Error(`upstream answered ${res.status}`);
  try {
    return JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    throw new Error(`upstream answered ${res.status} without JSON`);
  }
}
