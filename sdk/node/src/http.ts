/**
 * One request to the gateway: JSON or form body, an Idempotency-Key on every POST (generated unless the
 * caller gives one), and retries of what is safe to retry with that same key: no answer at all, 5xx, 429, and
 * a 409 that says when to come back (Retry-After: an earlier attempt under the key, or an operation on the
 * payment, is still running). The gateway replays the stored answer of a key it has seen, so a retried payment
 * is never charged twice. A 409 without Retry-After (a key reused for another request, or a first attempt that
 * failed on the gateway's side and may have taken effect) is final: the same request again cannot change it.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiError, PortcullisConnectionError, type ErrorBody } from './errors.ts';

export interface TransportOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Milliseconds before an attempt is abandoned (default 30 000). */
  timeoutMs?: number;
  /** First retry delay; doubled at each retry, with jitter (default 300). */
  retryDelayMs?: number;
  /** A fetch of your own (proxies, tests). */
  fetch?: typeof fetch;
  /**
   * The merchant's `whsec_...` signing secret: every request then carries the `Portcullis-Signature` header
   * (HMAC-SHA256 over the timestamp and the raw body), which the gateway checks, and requires when the merchant's
   * `request_signature` setting is `required` (docs/merchants/request-signatures.md).
   */
  signingSecret?: string;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(key, t + "." + body)>`, the key being the secret's base64-decoded bytes. */
export function requestSignatureHeader(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  if (!secret.startsWith('whsec_')) throw new Error('Portcullis: the signing secret starts with whsec_');
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `t=${timestamp},v1=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface RequestOptions {
  /** Sent as `Idempotency-Key`; every retry of this call reuses it. Default: a random UUID per call. */
  idempotencyKey?: string;
  /** Extra headers (the hosted-fields `Token`). */
  headers?: Record<string, string>;
  /** Retries of this call (default: the client's maxRetries). */
  maxRetries?: number;
}

export type FormValue = string | number | boolean | undefined | null | { readonly [key: string]: FormValue } | readonly FormValue[];

/** Form fields with nested values as bracket keys (`custom_data[key]=value`), as the S2S channels read them. */
export function encodeForm(fields: Readonly<Record<string, FormValue>>): URLSearchParams {
  const out = new URLSearchParams();
  const put = (name: string, value: FormValue) => {
    if (value === undefined || value === null) return;
    if (typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) put(`${name}[${key}]`, inner as FormValue);
    } else out.append(name, String(value));
  };
  for (const [key, value] of Object.entries(fields)) put(key, value);
  return out;
}

const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

/** Whether the same request, under the same key, may get another answer later. */
const isRetriable = (res: Response) => RETRIED_STATUSES.has(res.status) || (res.status === 409 && res.headers.has('retry-after'));

export class Transport {
  private readonly fetchFn: typeof fetch;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;
  private readonly signingSecret: string | undefined;

  constructor(opts: TransportOptions = {}) {
    this.fetchFn = opts.fetch ?? fetch;
    this.maxRetries = opts.maxRetries ?? 2;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.retryDelayMs = opts.retryDelayMs ?? 300;
    this.signingSecret = opts.signingSecret;
  }

  async send<T>(method: 'POST' | 'PUT', url: string, body: { json: unknown } | { form: URLSearchParams }, opts: RequestOptions = {}): Promise<T> {
    const idempotencyKey = method === 'POST' ? opts.idempotencyKey ?? randomUUID() : undefined;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'json' in body ? 'application/json' : 'application/x-www-form-urlencoded',
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      ...opts.headers,
    };
    const payload = 'json' in body ? JSON.stringify(body.json) : body.form.toString();
    const maxRetries = opts.maxRetries ?? this.maxRetries;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        // Signed afresh for every attempt: the gateway accepts each signature once (the Idempotency-Key, the same on
        // every attempt, is what makes a retry safe).
        const signature: Record<string, string> = this.signingSecret ? { 'portcullis-signature': requestSignatureHeader(this.signingSecret, payload) } : {};
        res = await this.fetchFn(url, { method, headers: { ...headers, ...signature }, body: payload, signal: AbortSignal.timeout(this.timeoutMs) });
      } catch (err) {
        if (attempt < maxRetries) {
          await sleep(this.delay(attempt));
          continue;
        }
        throw new PortcullisConnectionError(`${method} ${url}: no answer (${(err as Error).message})`, err, idempotencyKey);
      }
      const text = await res.text();
      if (isRetriable(res) && attempt < maxRetries) {
        await sleep(this.delay(attempt, res.headers.get('retry-after')));
        continue;
      }
      return this.answer<T>(res.status, text, idempotencyKey);
    }
  }

  private answer<T>(status: number, text: string, idempotencyKey: string | undefined): T {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const isError = status >= 400 || (typeof parsed === 'object' && parsed !== null && (parsed as { result?: unknown }).result === 'ERROR');
    if (!isError && parsed !== undefined) return parsed as T;
    const body: ErrorBody = typeof parsed === 'object' && parsed !== null && typeof (parsed as ErrorBody).error_message === 'string'
      ? (parsed as ErrorBody)
      : { error_message: `Unexpected answer: ${text.slice(0, 200)}` };
    throw apiError(status, body, idempotencyKey);
  }

  private delay(attempt: number, retryAfter?: string | null): number {
    const seconds = retryAfter ? Number(retryAfter) : NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 30_000);
    const base = this.retryDelayMs * 2 ** attempt;
    return base / 2 + Math.random() * (base / 2);
  }
}
