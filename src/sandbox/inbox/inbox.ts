/**
 * The sandbox merchant inbox (development only): the callback endpoint of the demo merchant that `npm start`
 * creates. It receives the gateway's callbacks as a merchant's server would, checks each one as the merchant's
 * code must (the platform's `hash` with the merchant's password, the Standard Webhooks `webhook-signature` with
 * its signing secret) and keeps the last ones in memory for its page and its JSON. One inbox per server.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../../services/context.ts';
import { getPayment } from '../../services/queries/payments.ts';
import { findMerchantById } from '../../services/queries/merchants.ts';
import { transHashTerms } from '../../services/callbacks/s2s-card-callback.ts';
import { checkout, checkoutHash, s2sHash } from '../../domain/signatures.ts';
import { REPLAY_WINDOW_SECONDS, webhookSignature } from '../../domain/webhook-signature.ts';

/** What a check found: `verified`, `mismatch`, or why it could not run. */
export type Check = { result: 'verified' } | { result: 'mismatch' | 'unchecked'; reason: string };

export interface InboxEntry {
  /** Sequence number in this inbox, from 1. */
  seq: number;
  receivedAt: string;
  /** The callback's event id (X-Callback-Id, webhook-id). */
  callbackId?: string;
  /** checkout or s2s, by the callback's fields. */
  protocol: 'checkout' | 's2s' | 'unknown';
  merchant?: string;
  paymentId?: string;
  orderId?: string;
  /** Checkout `type` / S2S `action`, and the status the callback carries. */
  event?: string;
  status?: string;
  hash: Check;
  signature: Check;
  /** The callback's fields as received. */
  fields: Record<string, string>;
}

/** The most callbacks kept; older ones are dropped. */
export const INBOX_SIZE = 200;

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The form's flat fields (nested ones as they are named on the wire, `extended_data[x]`). */
export function flatFields(contentType: string, raw: string): Record<string, string> {
  if (contentType.includes('json')) {
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (parsed && typeof parsed === 'object') return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    } catch {
      return {};
    }
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw)) out[k] = v;
  return out;
}

export class MerchantInbox {
  private readonly entries: InboxEntry[] = [];
  private seq = 0;

  constructor(private readonly ctx: Pick<ServiceContext, 'db' | 'keyring' | 'clock' | 'signingKeys'>) {}

  list(): readonly InboxEntry[] {
    return [...this.entries].reverse();
  }

  /** Receives one callback: its raw body (what webhook-signature covers) and its headers. */
  async receive(raw: string, contentType: string, headers: Record<string, string | undefined>): Promise<InboxEntry> {
    const fields = flatFields(contentType, raw);
    const protocol = fields.order_number !== undefined && fields.id !== undefined ? 'checkout' : fields.action !== undefined ? 's2s' : 'unknown';
    const paymentId = protocol === 'checkout' ? fields.id : fields.trans_id ?? fields.payment_id;
    const payment = paymentId ? await getPayment(this.ctx.db, paymentId) : undefined;
    const merchant = payment ? await findMerchantById(this.ctx.db, this.ctx.keyring, payment.merchantId) : undefined;
    let hash: Check = { result: 'unchecked', reason: 'no payment of this gateway is named by the callback' };
    let signature: Check = { result: 'unchecked', reason: 'no payment of this gateway is named by the callback' };
    if (payment && merchant) {
      hash = this.checkHash(protocol, fields, () => protocol === 'checkout'
        ? checkoutHash(checkout.callback({ id: fields.id ?? '', orderNumber: fields.order_number ?? '', amount: fields.order_amount ?? '', currency: fields.order_currency ?? '', description: fields.order_description ?? '' }), merchant.password, merchant.digest)
        : s2sHash(transHashTerms(payment, merchant.password), merchant.digest));
      signature = await this.checkSignature(merchant.id, raw, headers);
    }
    const entry: InboxEntry = {
      seq: ++this.seq,
      receivedAt: this.ctx.clock.now().toISOString(),
      ...(text(headers['webhook-id'] ?? headers['x-callback-id']) ? { callbackId: text(headers['webhook-id'] ?? headers['x-callback-id'])! } : {}),
      protocol,
      ...(merchant ? { merchant: merchant.name } : {}),
      ...(paymentId ? { paymentId } : {}),
      ...(fields.order_number ?? fields.order_id ? { orderId: fields.order_number ?? fields.order_id! } : {}),
      ...(fields.type ?? fields.action ? { event: fields.type ?? fields.action! } : {}),
      ...(fields.status ? { status: fields.status } : {}),
      hash,
      signature,
      fields,
    };
    this.entries.push(entry);
    if (this.entries.length > INBOX_SIZE) this.entries.shift();
    return entry;
  }

  private checkHash(protocol: InboxEntry['protocol'], fields: Record<string, string>, expected: () => string): Check {
    if (protocol === 'unknown') return { result: 'unchecked', reason: 'neither a Checkout nor an S2S CARD callback' };
    if (!fields.hash) return { result: 'mismatch', reason: 'no hash field' };
    return same(fields.hash, expected()) ? { result: 'verified' } : { result: 'mismatch', reason: 'the hash is not the one the merchant\'s password gives' };
  }

  private async checkSignature(merchantId: string, raw: string, headers: Record<string, string | undefined>): Promise<Check> {
    const id = headers['webhook-id'];
    const timestamp = Number(headers['webhook-timestamp']);
    const given = headers['webhook-signature'];
    if (!id || !given || !Number.isInteger(timestamp)) return { result: 'mismatch', reason: 'webhook-id, webhook-timestamp or webhook-signature missing' };
    if (Math.abs(this.ctx.clock.now().getTime() / 1000 - timestamp) > REPLAY_WINDOW_SECONDS) return { result: 'mismatch', reason: `webhook-timestamp more than ${REPLAY_WINDOW_SECONDS} s from now` };
    if (!this.ctx.signingKeys) return { result: 'unchecked', reason: 'no signing keys' };
    const keys = (await this.ctx.signingKeys.keysFor(merchantId)).expose();
    const ok = keys.some((key) => {
      const expected = webhookSignature(key, id, timestamp, raw);
      return given.split(' ').some((sig) => same(sig, expected));
    });
    return ok ? { result: 'verified' } : { result: 'mismatch', reason: 'no signature made with the merchant\'s signing secret' };
  }
}
