/**
 * What an S2S APM merchant integration does, written from the platform's docs and not from the gateway's code:
 * the per-action hash formulas, the APM callback signature (PHP: array_walk_recursive strrev, ksort, implode,
 * md5(strtoupper(... . PASSWORD))), a SALE request, and picking the catalog's methods by payer experience.
 */
import { createHash } from 'node:crypto';
import qs from 'qs';
import { METHOD_LIST, type MethodEntry, type PayerExperience } from '../../src/domain/methods/catalog.ts';
import type { TestGateway, TestMerchant } from '../support/gateway.ts';

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');
const bytes = (s: string) => Buffer.from(s, 'utf8');
/** PHP strrev reverses bytes; strtoupper changes ASCII a-z only. */
const strrev = (s: string) => bytes(s).reverse();
const upper = (b: Buffer) => Buffer.from(b.map((c) => (c >= 0x61 && c <= 0x7a ? c - 0x20 : c)));
const cat = (...parts: (string | Buffer)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? bytes(p) : p)));

/** SALE: md5(strtoupper(strrev(identifier . order_id . order_amount . order_currency . PASSWORD))). */
export const saleHash = (f: { identifier?: string; order_id: string; order_amount: string; order_currency: string }, password: string) =>
  md5(upper(strrev((f.identifier ?? '') + f.order_id + f.order_amount + f.order_currency + password)));
/** CAPTURE, VOID, GET_TRANS_STATUS: md5(strtoupper(strrev(trans_id)) . PASSWORD). */
export const transHash = (transId: string, password: string) => md5(cat(upper(strrev(transId)), password));
/** CREDITVOID: md5(strtoupper(strrev(trans_id . PASSWORD))). */
export const creditvoidHash = (transId: string, password: string) => md5(upper(strrev(transId + password)));
/** CREDIT2VIRTUAL: md5(strtoupper(strrev(order_id . order_amount . order_currency)) . PASSWORD). */
export const credit2VirtualHash = (orderId: string, amount: string, currency: string, password: string) => md5(cat(upper(strrev(orderId + amount + currency)), password));
/** CREDIT2VIRTUAL callback: md5(strtoupper(strrev(trans_id . order_id . status)) . PASSWORD). */
export const credit2VirtualCallbackHash = (f: Record<string, string>, password: string) => md5(cat(upper(strrev(f.trans_id! + f.order_id! + f.status!)), password));

type Nested = string | { [key: string]: Nested };

/** The platform's PHP callback check, over the callback body as PHP parses it (bracket keys nest). */
export function callbackHash(raw: string, password: string): string {
  const { hash: _hash, ...params } = qs.parse(raw, { depth: 10 }) as Record<string, Nested>;
  const convert = (value: Nested): Buffer => {
    if (typeof value === 'string') return strrev(value);
    const keys = Object.keys(value).sort((a, b) => {
      const an = /^\d+$/.test(a);
      const bn = /^\d+$/.test(b);
      if (an && bn) return Number(a) - Number(b);
      if (an !== bn) return an ? -1 : 1;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    return Buffer.concat(keys.map((k) => convert(value[k]!)));
  };
  return md5(upper(cat(convert(params), password)));
}

let orders = 0;
export const orderId = (prefix = 'APM') => `${prefix}-${process.pid}-${Date.now()}-${++orders}`;

/** A method of the catalog for a payer experience that a merchant can use with nothing but the documented request. */
export function representative(experience: PayerExperience, channel: 'checkout' | 's2s_apm', opts: { pageFields?: boolean } = {}): MethodEntry {
  const usable = (m: MethodEntry) =>
    m.experience === experience &&
    m.operations.includes('purchase') &&
    (m.channels ?? [channel]).includes(channel) &&
    (!m.currencies || m.currencies.includes('EUR')) &&
    // Nothing the merchant must send itself in parameters...
    !m.params.some((p) => p.requirement === 'required' && !p.collectOnPage && (p.source ?? 'parameters') === 'parameters') &&
    // ...and page fields only where the experience is about them.
    m.params.some((p) => p.collectOnPage) === (opts.pageFields ?? experience === 'extra_fields');
  const found = METHOD_LIST.find(usable) ?? (experience === 'qr' ? METHOD_LIST.find((m) => m.key === 'ips') : undefined);
  if (!found) throw new Error(`no catalog method for experience ${experience} on ${channel}`);
  return found;
}

/** The country-dependent fields kind: a member required only in some billing countries. */
export function countryDependent(): MethodEntry {
  const found = METHOD_LIST.find((m) => m.params.some((p) => p.collectOnPage && p.requiredIn) && m.experience === 'extra_fields');
  if (!found) throw new Error('no country-dependent method in the catalog');
  return found;
}

/** The QR method: ips by its experience and currencies (EUR, RSD, BAM, MKD). */
export function qrMethod(): MethodEntry {
  return METHOD_LIST.find((m) => m.experience === 'qr' && m.currencies?.includes('RSD')) ?? METHOD_LIST.find((m) => m.key === 'ips')!;
}

/** The mobile-money payout brand of CREDIT2VIRTUAL (currencies GHS, KES, XOF, XAF, TZS, EGP). */
export function mobileMoneyPayout(): MethodEntry {
  const found = METHOD_LIST.find((m) => m.operations.includes('credit') && m.currencies?.includes('GHS') && (m.channels ?? []).includes('s2s_apm'));
  if (!found) throw new Error('no mobile-money payout method in the catalog');
  return found;
}

/** A SALE of the docs' shape; hash added by `signedSale`. */
export function saleFields(brand: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    action: 'SALE',
    brand,
    order_id: orderId(),
    order_amount: '12.50',
    order_currency: 'EUR',
    order_description: 'APM order',
    payer_first_name: 'Jane',
    payer_last_name: 'Roe',
    payer_email: 'success@gmail.com',
    payer_phone: '+38160123456',
    payer_country: 'RS',
    payer_ip: '203.0.113.7',
    return_url: 'https://shop.example/return',
    ...overrides,
  };
}

export function signedSale(m: TestMerchant, fields: Record<string, unknown>): Record<string, unknown> {
  return { client_key: m.key, ...fields, hash: saleHash(fields as { order_id: string; order_amount: string; order_currency: string; identifier?: string }, m.password) };
}

export async function sale(gw: TestGateway, brand: string, overrides: Record<string, unknown> = {}, m: TestMerchant = gw.merchant) {
  return gw.postForm('/apm/post', signedSale(m, saleFields(brand, overrides)));
}

/** CAPTURE, VOID, GET_TRANS_STATUS (by trans_id) and CREDITVOID with their own hashes. */
export function followUp(gw: TestGateway, action: 'CAPTURE' | 'VOID' | 'CREDITVOID' | 'GET_TRANS_STATUS', transId: string, extra: Record<string, unknown> = {}, m: TestMerchant = gw.merchant) {
  const hash = action === 'CREDITVOID' ? creditvoidHash(transId, m.password) : transHash(transId, m.password);
  return gw.postForm('/apm/post', { action, client_key: m.key, trans_id: transId, ...extra, hash });
}

export const messages = (res: { body: any }): string[] => (res.body?.errors ?? []).map((e: { error_message: string }) => e.error_message);

/** The bank posting its callback for the QR method (ISO 20022 status codes). */
export function bankCallback(gw: TestGateway, transId: string, status: 'ACSC' | 'RJCT') {
  return gw.postForm('/apm/bank/callback', { EndToEndId: transId, TxSts: status, TxId: `BANK-${transId.slice(0, 8)}` });
}
