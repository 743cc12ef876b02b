/**
 * The fuzz of the whole HTTP surface (issue 12): generated malformed requests over every registered route
 * (hostile path parameters, methods, content types, bodies, headers, query strings; some signed with the
 * merchant's real hash so business validation runs too), checked answer by answer: never a 5xx, and every
 * error answer a D3 body (or an HTML page on the payer's pages). Seeded, so a failure replays.
 * Used by `npm run fuzz` (scripts/fuzz.ts, >= 100,000 requests) and by test/hardening/fuzz.test.ts.
 */
import type { RouteEntry } from '../../src/app.ts';
import { checkoutHash } from './merchant.ts';
import { signedSale, saleFields } from '../s2s-card/support.ts';
import type { TestMerchant } from './gateway.ts';
import { prng } from './prng.ts';

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** What produced it, for the failure report. */
  label: string;
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const chance = (r: Rand, p: number) => r() < p;

const HOSTILE_SEGMENTS = [
  '', '%', '%zz', '%00', '%2e%2e', '..', '%2F', 'a'.repeat(1100), 'x'.repeat(5000), "'%20OR%201=1--", '%F0%9F%92%B3', '%C3%28',
  '00000000-0000-0000-0000-000000000000', '-1', '1e999', 'null', 'undefined', '__proto__', 'constructor', '%E2%80%AE', '*', '%0d%0aSet-Cookie:x=1',
];
const FIELD_NAMES = [
  'merchant_key', 'client_key', 'hash', 'operation', 'order', 'amount', 'currency', 'payment_id', 'order_id', 'action', 'card_number',
  'card_exp_month', 'card_exp_year', 'card_cvv2', 'methods', 'parameters', 'success_url', 'cancel_url', 'callback_url', 'billing_address',
  'customer', 'size', 'trans_id', 'order_amount', 'order_currency', 'payer_email', 'payer_ip', 'brand', 'recurring_token', 'schedule_id',
  'token', 'code', 'url', 'days', 'seconds', 'EndToEndId', 'TxSts', '__proto__', 'constructor', 'card', 'expiry', 'cvv', 'session_expiry',
];
const WEIRD_STRINGS = [
  '', ' ', '\u0000', 'A\u0000B', '\uD800', '𝕏'.repeat(40), '<script>alert(1)</script>', "' OR 1=1 --", '../../etc/passwd', '-1', '0', '1e309',
  '9'.repeat(40), '0.001', '-0.00', 'NaN', 'Infinity', 'true', 'Y', 'http://127.0.0.1/cb', 'http://[::1]/', 'javascript:alert(1)', 'x'.repeat(3000),
  '4111111111111111', '2038', '13', '00', '%s%s%s%n', '${7*7}', '{{7*7}}', 'SALE', 'CAPTURE', 'purchase', 'USD', 'ZZZ', 'a@b', '\r\n\r\n',
];

function weirdValue(r: Rand, depth = 0): unknown {
  const k = Math.floor(r() * 10);
  if (depth > 3) return pick(r, WEIRD_STRINGS);
  switch (k) {
    case 0: return null;
    case 1: return pick(r, [0, -1, 1.5, 1e308, -1e-7, 2 ** 63, Number.MAX_SAFE_INTEGER + 2]);
    case 2: return chance(r, 0.5);
    case 3: return Array.from({ length: Math.floor(r() * 4) }, () => weirdValue(r, depth + 1));
    case 4: return Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, () => [pick(r, FIELD_NAMES), weirdValue(r, depth + 1)]));
    default: return pick(r, WEIRD_STRINGS);
  }
}

/** encodeURIComponent, with a lone surrogate sent as the bytes it would be in CESU-8 (invalid UTF-8). */
function enc(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

function nested(depth: number, leaf: string): string {
  return '['.repeat(depth) + leaf + ']'.repeat(depth);
}

/** A JSON-ish body: valid with odd values, or broken in one of many ways. */
function jsonBody(r: Rand): string | Buffer {
  switch (Math.floor(r() * 14)) {
    case 0: return '{"merchant_key":';
    case 1: return `{"a":${nested(40, '1')}}`;
    case 2: return `{"a":${nested(5000, '')}}`;
    case 3: return JSON.stringify(Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, i])));
    case 4: return '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}';
    case 5: return Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]);
    case 6: return '';
    case 7: return 'null';
    case 8: return '[1,2,3]';
    case 9: return '"string"';
    case 10: return `{"a":"${'x'.repeat(300_000)}"}`;
    case 11: return '{"a":1,"a":2,"a":{"b":[]}}';
    default: return JSON.stringify(Object.fromEntries(Array.from({ length: 1 + Math.floor(r() * 8) }, () => [pick(r, FIELD_NAMES), weirdValue(r)])));
  }
}

function formBody(r: Rand): string {
  switch (Math.floor(r() * 8)) {
    case 0: return 'a[b][c][d][e][f][g][h][i]=1&' + 'x[]='.repeat(200) + '1';
    case 1: return Array.from({ length: 1500 }, (_, i) => `k${i}=${i}`).join('&');
    case 2: return '%zz=%&&==&a=%00&b=%C3%28';
    case 3: return '__proto__[x]=1&constructor[prototype][y]=2';
    default: return Array.from({ length: 1 + Math.floor(r() * 10) }, () => `${enc(pick(r, FIELD_NAMES))}=${enc(String(pick(r, WEIRD_STRINGS)))}`).join('&');
  }
}

function multipartBody(r: Rand): { type: string; body: string } {
  const boundary = 'fz' + Math.floor(r() * 1e9);
  if (chance(r, 0.3)) return { type: 'multipart/form-data', body: '--x\r\nbroken' };
  if (chance(r, 0.3)) return { type: `multipart/form-data; boundary=${boundary}`, body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--${boundary}--\r\n` };
  const parts = Array.from({ length: 1 + Math.floor(r() * 5) }, () => `--${boundary}\r\nContent-Disposition: form-data; name="${pick(r, FIELD_NAMES)}"\r\n\r\n${pick(r, WEIRD_STRINGS)}\r\n`);
  return { type: `multipart/form-data; boundary=${boundary}`, body: `${parts.join('')}--${boundary}--\r\n` };
}

function fillPath(r: Rand, url: string): string {
  return url.replace(/:[A-Za-z_]+/g, () => pick(r, HOSTILE_SEGMENTS)).replace(/\*$/, pick(r, HOSTILE_SEGMENTS));
}

function query(r: Rand): string {
  if (!chance(r, 0.3)) return '';
  const parts = Array.from({ length: 1 + Math.floor(r() * 5) }, () => `${pick(r, [...FIELD_NAMES, 'a[b][c]', 'x[]', '%zz'])}=${enc(String(pick(r, WEIRD_STRINGS)).slice(0, 200))}`);
  return `?${parts.join('&')}`;
}

/** Requests a merchant would sign: real hash over hostile values, so validation past authentication runs. */
function signedRequest(r: Rand, m: TestMerchant): FuzzRequest {
  const kind = Math.floor(r() * 3);
  if (kind === 0) {
    const order = { number: String(pick(r, ['o-1', 'ö', 'x'.repeat(300), ''])), amount: String(pick(r, ['1.00', '-1', '0', '1.001', '9'.repeat(30), 'abc'])), currency: String(pick(r, ['USD', 'JPY', 'ZZZ', 'usd'])), description: String(pick(r, ['ok order', 'x', ''])) };
    const body = { merchant_key: m.key, operation: pick(r, ['purchase', 'debit', 'credit', 'x']), order, success_url: pick(r, ['https://s.example/ok', 'x', 'http://127.0.0.1/']), methods: chance(r, 0.5) ? [pick(r, ['card', 'naps', 'zzz', ''])] : undefined, billing_address: chance(r, 0.5) ? weirdValue(r) : undefined, hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description) };
    return { method: 'POST', path: '/api/v1/session', headers: { 'content-type': 'application/json', ...(chance(r, 0.3) ? { 'idempotency-key': String(pick(r, ['k', 'x'.repeat(300)])) } : {}) }, body: JSON.stringify(body), label: 'signed session' };
  }
  if (kind === 1) {
    const id = String(pick(r, ['p-1', '00000000-0000-0000-0000-000000000000', 'x'.repeat(100), '']));
    return { method: 'POST', path: pick(r, ['/api/v1/payment/status', '/api/v1/payment/capture', '/api/v1/payment/refund', '/api/v1/payment/void']), headers: { 'content-type': 'application/json' }, body: JSON.stringify({ merchant_key: m.key, payment_id: id, amount: chance(r, 0.5) ? pick(r, ['1.00', '-5', 'x']) : undefined, hash: checkoutHash(m.password, id) }), label: 'signed follow-up' };
  }
  const overrides: Record<string, unknown> = {};
  for (let i = 0; i < 3; i++) overrides[pick(r, ['order_amount', 'order_currency', 'card_exp_month', 'card_exp_year', 'payer_email', 'payer_ip', 'callback_url', 'order_id', 'payer_country', 'term_url_3ds'])] = pick(r, WEIRD_STRINGS);
  const fields = signedSale(m, saleFields(overrides));
  const body = new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString();
  return { method: 'POST', path: pick(r, ['/post', '/v2/post']), headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, label: 'signed S2S SALE' };
}

/** The i-th request of the run seeded `seed`. */
export function generateRequest(seed: number, i: number, routes: readonly RouteEntry[], merchant: TestMerchant): FuzzRequest {
  const r = prng(seed * 1_000_003 + i);
  if (chance(r, 0.12)) return signedRequest(r, merchant);
  const route = pick(r, routes);
  const method = chance(r, 0.85) ? route.method : pick(r, ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
  const path = fillPath(r, route.url) + query(r);
  const headers: Record<string, string> = {};
  if (chance(r, 0.1)) headers['idempotency-key'] = String(pick(r, ['k1', 'x'.repeat(300), '\u00e9']).replace(/[^\x20-\x7e]/g, '?'));
  if (chance(r, 0.1)) headers.token = pick(r, ['', 'x', 'a'.repeat(500)]);
  if (chance(r, 0.1)) headers.authorization = pick(r, ['Bearer ', 'Bearer x', 'Basic Zm9v', 'Bearer ' + 'y'.repeat(300)]);
  if (chance(r, 0.05)) headers['x-forwarded-for'] = pick(r, ['not-an-ip', '1.2.3.4, 5.6.7.8', '::1']);
  let body: string | Buffer | undefined;
  if (method !== 'GET' && method !== 'OPTIONS' && method !== 'DELETE') {
    const kind = Math.floor(r() * 10);
    if (kind < 5) {
      headers['content-type'] = pick(r, ['application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'APPLICATION/JSON']);
      body = jsonBody(r);
    } else if (kind < 8) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = formBody(r);
    } else if (kind < 9) {
      const mp = multipartBody(r);
      headers['content-type'] = mp.type;
      body = mp.body;
    } else {
      headers['content-type'] = pick(r, ['text/plain', 'application/xml', 'application/octet-stream', '', 'invalid/', 'application/x-www-form-urlencoded; charset=ebcdic']);
      body = pick(r, ['<a/>', 'hello', '\u0000\u0001']);
      if (headers['content-type'] === '') delete headers['content-type'];
    }
  }
  return { method, path, headers, body, label: `${route.method} ${route.url}` };
}

export interface FuzzFinding {
  request: FuzzRequest;
  status: number;
  reason: string;
  body: string;
}

export interface FuzzReport {
  requests: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  nonD3: number;
  findings: FuzzFinding[];
  routes: number;
  seconds: number;
}

function isD3(text: string, status: number): boolean {
  try {
    const b = JSON.parse(text) as Record<string, unknown>;
    // A sandbox merchant's bad hash adds `hint` (the formula expected), on that answer only.
    const hintAllowed = status === 401 && b.error_message === 'hash: Hash is not valid.' && typeof b.hint === 'string';
    return b.http_code === status && typeof b.error_code === 'string' && typeof b.error_message === 'string'
      && Object.keys(b).every((k) => ['http_code', 'error_code', 'error_message', 'errors', 'result'].includes(k) || (k === 'hint' && hintAllowed));
  } catch {
    return false;
  }
}

/** A problem with one answer, or undefined when it is acceptable. */
export function judge(status: number, contentType: string, text: string): string | undefined {
  if (status >= 500) return '5xx';
  if (status < 400) return undefined;
  // The payer's pages answer their errors as pages; everything else in D3.
  if (contentType.startsWith('text/html')) return undefined;
  return isD3(text, status) ? undefined : 'not a D3 body';
}

/** Sends `count` requests (concurrency at a time) and judges every answer. */
export async function runFuzz(opts: { baseUrl: string; routes: readonly RouteEntry[]; merchant: TestMerchant; count: number; seed: number; concurrency?: number; onProgress?: (done: number) => void }): Promise<FuzzReport> {
  const started = performance.now();
  const report: FuzzReport = { requests: 0, byStatus: {}, serverErrors: 0, nonD3: 0, findings: [], routes: opts.routes.length, seconds: 0 };
  let next = 0;
  const worker = async () => {
    while (next < opts.count) {
      const i = next++;
      const req = generateRequest(opts.seed, i, opts.routes, opts.merchant);
      let status = 0;
      let contentType = '';
      let text = '';
      try {
        const res = await fetch(opts.baseUrl + req.path, { method: req.method, headers: req.headers, body: typeof req.body === 'string' || req.body === undefined ? req.body : new Uint8Array(req.body), redirect: 'manual', signal: AbortSignal.timeout(30_000) });
        status = res.status;
        contentType = res.headers.get('content-type') ?? '';
        text = await res.text();
      } catch (err) {
        // A URL fetch itself refuses (a bad header value) never reached the gateway: not a finding of ours.
        if (err instanceof TypeError && !(err as { cause?: unknown }).cause) continue;
        status = 599;
        text = String((err as Error).message) + ' ' + String((err as { cause?: { code?: string } }).cause?.code ?? '');
      }
      report.requests++;
      report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
      const problem = judge(status, contentType, text);
      if (problem === '5xx') report.serverErrors++;
      if (problem === 'not a D3 body') report.nonD3++;
      if (problem && report.findings.length < 50) report.findings.push({ request: { ...req, body: typeof req.body === 'string' ? req.body.slice(0, 300) : req.body }, status, reason: problem, body: text.slice(0, 300) });
      if (report.requests % 5000 === 0) opts.onProgress?.(report.requests);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 16 }, worker));
  report.seconds = Math.round((performance.now() - started) / 100) / 10;
  return report;
}
