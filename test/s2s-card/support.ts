/**
 * What an S2S CARD merchant integration does, written from the platform's docs and not from the gateway's
 * code: the hash formulas, the SALE fields, a callback endpoint answering OK, and a term_url_3ds page.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestGateway, TestMerchant } from '../support/gateway.ts';

export type Digest = 'md5' | 'sha256';
/** PHP semantics over bytes: strrev reverses bytes, strtoupper changes ASCII a-z only. */
type Bytes = Buffer;
const bytes = (s: string): Bytes => Buffer.from(s, 'utf8');
const strrev = (s: string): Bytes => bytes(s).reverse();
const upper = (b: Bytes): Bytes => Buffer.from(b.map((c) => (c >= 0x61 && c <= 0x7a ? c - 0x20 : c)));
const cat = (...parts: (string | Bytes)[]): Bytes => Buffer.concat(parts.map((p) => (typeof p === 'string' ? bytes(p) : p)));
const digest = (algorithm: Digest, data: Bytes) => createHash(algorithm).update(data).digest('hex');
const card64 = (pan: string) => pan.slice(0, 6) + pan.slice(-4);

/** Formula 1: md5(strtoupper(strrev(email) . PASSWORD . strrev(first6 . last4))); card_token in place of the card. */
export const f1 = (email: string, password: string, cardOrToken: string, d: Digest = 'md5') =>
  digest(d, upper(cat(strrev(email), password, strrev(/^[0-9]{13,19}$/.test(cardOrToken) ? card64(cardOrToken) : cardOrToken))));
/** Formula 2: md5(strtoupper(strrev(email) . PASSWORD . trans_id . strrev(first6 . last4))). */
export const f2 = (email: string, password: string, transId: string, pan: string, d: Digest = 'md5') =>
  digest(d, upper(cat(strrev(email), password, transId, strrev(card64(pan)))));
/** Formula 5: md5(strtoupper(PASSWORD . strrev(first6 . last4))). */
export const f5 = (password: string, pan: string) => digest('md5', upper(cat(password, strrev(card64(pan)))));
/** Formula 6: md5(strtoupper(PASSWORD . trans_id . strrev(first6 . last4))). */
export const f6 = (password: string, transId: string, pan: string) => digest('md5', upper(cat(password, transId, strrev(card64(pan)))));
/** Formula 7: md5(strtoupper(strrev(email) . PASSWORD . order_id . strrev(first6 . last4))). */
export const f7 = (email: string, password: string, orderId: string, pan: string) =>
  digest('md5', upper(cat(strrev(email), password, orderId, strrev(card64(pan)))));
/** The interface spec's follow-up recipe: md5(strtoupper(strrev(id)) . PASSWORD). */
export const reversedIdHash = (id: string, password: string, d: Digest = 'md5') => digest(d, cat(upper(strrev(id)), password));

export const CARD = '4111111111111111';
export const PAYOUT_CARD = '4601541833776519';
export const EMAIL = 'doe@example.com';

let orders = 0;
export const orderId = (prefix = 'ORDER') => `${prefix}-${process.pid}-${Date.now()}-${++orders}`;

/** A complete SALE of the docs' sample, expiry month choosing the sandbox outcome; hash added by `signed`. */
export function saleFields(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    action: 'SALE',
    order_id: orderId(),
    order_amount: '1.99',
    order_currency: 'USD',
    order_description: 'Product',
    card_number: CARD,
    card_exp_month: '01',
    card_exp_year: '2038',
    card_cvv2: '000',
    payer_first_name: 'John',
    payer_last_name: 'Doe',
    payer_address: 'Big street',
    payer_country: 'US',
    payer_state: 'CA',
    payer_city: 'City',
    payer_zip: '123456',
    payer_email: EMAIL,
    payer_phone: '199999999',
    payer_ip: '123.123.123.123',
    term_url_3ds: 'http://client.site.com/return.php',
    ...overrides,
  };
}

/** Adds client_key and the F1 hash a merchant computes for a SALE or DEBIT. */
export function signedSale(m: TestMerchant, fields: Record<string, unknown>, d: Digest = 'md5'): Record<string, unknown> {
  const card = (fields.card_number as string | undefined) ?? (fields.card_token as string);
  return { client_key: m.key, ...fields, hash: f1((fields.payer_email as string | undefined) ?? '', m.password, card, d) };
}

/** POSTs a signed SALE (overrides on the docs' sample) to /post; returns status and body. */
export async function sale(gw: TestGateway, overrides: Record<string, unknown> = {}, m: TestMerchant = gw.merchant) {
  return gw.postForm('/post', signedSale(m, saleFields(overrides)));
}

/** A follow-up signed with F2 (the merchant knows e-mail and card from its SALE). */
export function followUp(gw: TestGateway, action: string, transId: string, extra: Record<string, unknown> = {}, m: TestMerchant = gw.merchant, pan = CARD) {
  return gw.postForm('/post', { action, client_key: m.key, trans_id: transId, ...extra, hash: f2(EMAIL, m.password, transId, pan) });
}

/** Asserts the D3 S2S error shape and returns the body. */
export function errorOf(res: { status: number; body: any }): { http_code: number; error_code: string; error_message: string; errors?: { error_code: string; error_message: string }[]; result: string } {
  if (res.body?.result !== 'ERROR') throw new Error(`expected an S2S error body, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const messages = (res: { body: any }): string[] => (res.body?.errors ?? []).map((e: { error_message: string }) => e.error_message);

// --- listeners -------------------------------------------------------------------------------------

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  raw: string;
  fields: Record<string, string>;
}

export interface Listener {
  url: string;
  received: Received[];
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A local HTTP endpoint answering `answer` (a callback receiver says OK; a term URL shows a page). */
export async function startListener(answer = 'OK', contentType = 'text/plain'): Promise<Listener> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, fields: Object.fromEntries(new URLSearchParams(raw)) });
      res.writeHead(200, { 'content-type': contentType }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${received.length}: ${JSON.stringify(received.map((r) => r.fields))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received.slice(0, count);
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
