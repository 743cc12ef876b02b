/**
 * The docs' worked hash examples, recomputed with the gateway's own signature functions: for each recipe
 * named in a docs/merchants/hashes.md example block, the pre-image, the inner digest (Checkout) and the hash.
 */
import * as sig from '../../src/domain/signatures.ts';
import { parseForm } from '../../src/channels/form.ts';

export type Values = Readonly<Record<string, string>>;

export interface Computed {
  preimage?: string;
  /** Checkout's inner digest (the md5 or sha256 hex that sha1 is taken of). */
  inner?: string;
  hash: string;
}

const need = (v: Values, key: string): string => {
  const value = v[key];
  if (value === undefined) throw new Error(`example lacks ${key}`);
  return value;
};
const opt = (v: Values, key: string): string => v[key] ?? '';
const digestOf = (v: Values): sig.Digest => (v.digest === 'sha256' ? 'sha256' : 'md5');

function checkout(fields: string[], v: Values): Computed {
  const pre = sig.preimage([...fields, need(v, 'password')]);
  const inner = sig.hex(digestOf(v), pre);
  return { preimage: pre.toString('utf8'), inner, hash: sig.hex('sha1', inner) };
}

function s2s(terms: sig.Term[], v: Values, raw = ''): Computed {
  const pre = Buffer.concat([sig.preimage(terms), Buffer.from(raw, 'utf8')]);
  return { preimage: pre.toString('utf8'), hash: sig.hex(digestOf(v), pre) };
}

const card = (v: Values) => (v.card_number !== undefined ? sig.card6_4(need(v, 'card_number')) : need(v, 'card_token'));
const pw = (v: Values) => need(v, 'password');

export const RECIPES: Readonly<Record<string, (v: Values) => Computed>> = {
  'checkout.session': (v) => checkout(sig.checkout.session({ number: need(v, 'order.number'), amount: need(v, 'order.amount'), currency: need(v, 'order.currency'), description: need(v, 'order.description') }), v),
  'checkout.status_by_payment_id': (v) => checkout(sig.checkout.byPaymentId(need(v, 'payment_id')), v),
  'checkout.status_by_order_id': (v) => checkout(sig.checkout.byOrderId(need(v, 'order_id')), v),
  'checkout.capture_refund': (v) => checkout(sig.checkout.captureOrRefund(need(v, 'payment_id'), opt(v, 'amount')), v),
  'checkout.void_retry': (v) => checkout(sig.checkout.voidOrRetry(need(v, 'payment_id')), v),
  'checkout.recurring': (v) => checkout(sig.checkout.recurring({ initTransId: need(v, 'recurring_init_trans_id'), token: need(v, 'recurring_token'), number: need(v, 'order.number'), amount: need(v, 'order.amount'), description: need(v, 'order.description') }), v),
  'checkout.card_credit': (v) => checkout(sig.checkout.cardCredit({ orderId: need(v, 'order_id'), amount: need(v, 'order_amount'), currency: need(v, 'order_currency'), description: need(v, 'order_description') }), v),
  'checkout.callback': (v) => checkout(sig.checkout.callback({ id: need(v, 'id'), orderNumber: need(v, 'order_number'), amount: need(v, 'order_amount'), currency: need(v, 'order_currency'), description: need(v, 'order_description') }), v),
  'sandbox.test_clock': (v) => checkout([need(v, 'merchant_key')], v),
  'sandbox.test_clock_advance': (v) => checkout([need(v, 'merchant_key'), opt(v, 'days'), opt(v, 'seconds')], v),
  's2s_card.f1': (v) => s2s(sig.s2sCard.f1(opt(v, 'payer_email'), pw(v), card(v)), v),
  's2s_card.f2': (v) => s2s(sig.s2sCard.f2(opt(v, 'payer_email'), pw(v), need(v, 'trans_id'), card(v)), v),
  's2s_card.f3': (v) => s2s(sig.s2sCard.f3(pw(v)), v),
  's2s_card.f4': (v) => s2s(sig.s2sCard.f4(need(v, 'schedule_id'), pw(v)), v),
  's2s_card.f5': (v) => s2s(sig.s2sCard.f5(pw(v), card(v)), v),
  's2s_card.f6': (v) => s2s(sig.s2sCard.f6(pw(v), need(v, 'trans_id'), card(v)), v),
  's2s_card.f7': (v) => s2s(sig.s2sCard.f7(opt(v, 'payer_email'), pw(v), need(v, 'order_id'), card(v)), v),
  's2s_card.f8': (v) => s2s(sig.s2sCard.f8(opt(v, 'payer_email'), pw(v)), v),
  's2s_card.trans_id': (v) => s2s([{ rev: need(v, 'trans_id') }], v, pw(v)),
  's2s_apm.sale': (v) => s2s(sig.s2sApm.sale({ identifier: v.identifier, orderId: need(v, 'order_id'), amount: need(v, 'order_amount'), currency: need(v, 'order_currency') }, pw(v)), v),
  's2s_apm.trans_id': (v) => s2s([{ rev: need(v, 'trans_id') }], v, pw(v)),
  's2s_apm.creditvoid': (v) => s2s(sig.s2sApm.creditvoid(need(v, 'trans_id'), pw(v)), v),
  's2s_apm.credit2virtual': (v) => s2s([{ rev: need(v, 'order_id') + need(v, 'order_amount') + need(v, 'order_currency') }], v, pw(v)),
  's2s_apm.credit2virtual_callback': (v) => s2s([{ rev: need(v, 'trans_id') + need(v, 'order_id') + need(v, 'status') }], v, pw(v)),
  's2s_apm.callback': (v) => ({ hash: sig.apmCallbackHash(parseForm(need(v, 'body')) as Record<string, sig.CallbackValue>, pw(v), digestOf(v)) }),
};

/** Every `recipe:` block of a Markdown text: its key/value lines. */
export function exampleBlocks(markdown: string): Values[] {
  const blocks = [...markdown.matchAll(/```text\n(recipe:[\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.map((block) => Object.fromEntries(block.trim().split('\n').map((line) => {
    const at = line.indexOf(':');
    return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
  })));
}

/** A block as the docs show it, the computed lines after the given ones. */
export function renderBlock(given: [string, string][]): string {
  const values = Object.fromEntries(given);
  const computed = RECIPES[values.recipe!]!(values);
  const lines: [string, string][] = [...given];
  if (computed.preimage !== undefined) lines.push(['preimage', computed.preimage]);
  if (computed.inner !== undefined) lines.push([values.digest === 'sha256' ? 'sha256' : 'md5', computed.inner]);
  lines.push(['hash', computed.hash]);
  const width = Math.max(...lines.map(([k]) => k.length)) + 2;
  return '```text\n' + lines.map(([k, v]) => `${(k + ':').padEnd(width)}${v}`).join('\n') + '\n```';
}
