/**
 * Verification of what reaches the merchant, on vectors computed here: the Standard Webhooks signature
 * headers (the spec's published vector and HMACs computed independently with node:crypto), replay window,
 * tampering, several signatures; nested APM callback bodies; Checkout callbacks and return URLs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import * as gateway from '../../../src/domain/signatures.ts';
import { parseNested, Portcullis, SignatureVerificationError, signWebhook, verifyS2sApmCallback, verifyWebhook } from '../src/index.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const KEY = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
const independent = (id: string, ts: number, body: string) => createHmac('sha256', KEY).update(`${id}.${ts}.${body}`).digest('base64');

describe('webhook signature headers (Standard Webhooks)', () => {
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const ts = 1614265330;
  const body = '{"test": 2432232314}';
  const at = new Date(ts * 1000);

  it('signs the spec\'s published vector and HMACs computed independently', () => {
    assert.equal(signWebhook(SECRET, id, ts, body), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const form = 'id=7b1e&order_number=A-1&order_amount=10.00&hash=abc';
    assert.equal(signWebhook(SECRET, 'evt-1', 1_900_000_000, form), `v1,${independent('evt-1', 1_900_000_000, form)}`);
  });

  it('accepts a valid delivery (any header casing, Headers or a plain object, one of several signatures) and answers its id', () => {
    const sig = `v1,${independent(id, ts, body)}`;
    assert.deepEqual(verifyWebhook(body, { 'Webhook-Id': id, 'webhook-timestamp': String(ts), 'webhook-signature': sig }, SECRET, { now: at }), { id, timestamp: at });
    const rotated = `v1,${Buffer.alloc(32, 7).toString('base64')} ${sig}`;
    assert.equal(verifyWebhook(Buffer.from(body), new Headers({ 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': rotated }), SECRET, { now: at }).id, id);
  });

  it('refuses tampering, a wrong secret, another version, missing headers and timestamps outside the window', () => {
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${independent(id, ts, body)}` };
    const refused = (fn: () => unknown) => assert.throws(fn, SignatureVerificationError);
    refused(() => verifyWebhook(body + ' ', headers, SECRET, { now: at }));
    refused(() => verifyWebhook(body, { ...headers, 'webhook-id': 'msg_other' }, SECRET, { now: at }));
    refused(() => verifyWebhook(body, headers, 'whsec_' + Buffer.alloc(24, 1).toString('base64'), { now: at }));
    refused(() => verifyWebhook(body, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }, SECRET, { now: at }));
    refused(() => verifyWebhook(body, { 'webhook-id': id, 'webhook-timestamp': String(ts) }, SECRET, { now: at }));
    refused(() => verifyWebhook(body, headers, SECRET, { now: new Date((ts + 301) * 1000) }));
    refused(() => verifyWebhook(body, headers, SECRET, { now: new Date((ts - 301) * 1000) }));
    assert.equal(verifyWebhook(body, headers, SECRET, { now: new Date((ts + 299) * 1000) }).id, id);
    assert.equal(verifyWebhook(body, headers, SECRET, { now: new Date((ts + 3000) * 1000), toleranceSeconds: 3600 }).id, id);
  });
});

describe('callback bodies', () => {
  it('nests bracket keys as PHP reads them, and verifies an APM callback with nested values', () => {
    const raw = 'action=SALE&result=SUCCESS&status=SETTLED&order_id=O-1&trans_id=t-1&amount=9.22&custom_data%5Bcart%5D=A-1&custom_data%5Bitems%5D%5B0%5D=x&transactions%5B10%5D=b&transactions%5B9%5D=a';
    const nested = parseNested(raw);
    assert.deepEqual(JSON.parse(JSON.stringify(nested.custom_data)), { cart: 'A-1', items: { 0: 'x' } });
    const hash = gateway.apmCallbackHash(nested, 'pw-1');
    assert.equal(verifyS2sApmCallback(`${raw}&hash=${hash}`, 'pw-1').trans_id, 't-1');
    assert.throws(() => verifyS2sApmCallback(`${raw.replace('9.22', '9.23')}&hash=${hash}`, 'pw-1'), SignatureVerificationError);
  });

  it('verifies a Checkout callback and a return URL computed independently from the docs\' formula', () => {
    const md5 = (s: string) => createHash('md5').update(s).digest('hex');
    const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
    const sdk = new Portcullis({ baseUrl: 'http://gateway.invalid', merchantKey: 'k', password: 'secret-pw' });
    const hash = sha1(md5('PAY-1ORDER-110.00USDGOLD PLANSECRET-PW'));
    const body = new URLSearchParams({ id: 'pay-1', order_number: 'order-1', order_amount: '10.00', order_currency: 'USD', order_description: 'Gold plan', status: 'success', hash });
    assert.equal(sdk.callbacks.verifyCheckout(body.toString()).status, 'success');
    const order = { number: 'order-1', amount: '10.00', currency: 'USD', description: 'Gold plan' };
    assert.equal(sdk.callbacks.verifyReturnUrl(`https://shop.example/ok?payment_id=pay-1&trans_id=t&order_id=order-1&hash=${hash}`, order).trans_id, 't');
    assert.throws(() => sdk.callbacks.verifyReturnUrl(`https://shop.example/ok?payment_id=pay-2&order_id=order-1&hash=${hash}`, order), SignatureVerificationError);
    assert.throws(() => sdk.callbacks.verifyCheckout(body.toString().replace('hash=', 'hash=0')), SignatureVerificationError);
  });
});
