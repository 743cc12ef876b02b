/**
 * Issue 25, item 5: what a merchant can add to the platform family's hash formulas (which bind no amount and no
 * time), over HTTP on both stores, each set through the admin API as an operator sets it:
 * - allowed source addresses: on the Checkout API, S2S CARD and S2S APM, a request from another client address (as
 *   TRUST_PROXY lets the gateway see it: the tests' 127.0.0.1 is a trusted proxy) is refused with that channel's
 *   own error body; from a listed address it goes through;
 * - the Portcullis-Signature header, computed here from the docs (docs/merchants/request-signatures.md): a
 *   replayed refund is refused, an amount changed under a signature is refused (the F1 hash alone would accept
 *   it), a timestamp out of the 5-minute window is refused, and `required` refuses a request without it on every
 *   channel.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { readAnswer } from '../support/answer.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { EMAIL, f2, saleFields as cardSaleFields, signedSale as signedCardSale } from '../s2s-card/support.ts';
import { representative, saleFields as apmSaleFields, signedSale as signedApmSale } from '../apm/support.ts';

const APM = representative('extra_fields', 's2s_apm');
const apmFields = () => apmSaleFields(APM.key, { parameters: Object.fromEntries(APM.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345'])) });

/** Form fields as the S2S clients encode them (bracket keys for nested values). */
function form(fields: Record<string, unknown>, prefix = '', out = new URLSearchParams()): URLSearchParams {
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    const name = prefix ? `${prefix}[${key}]` : key;
    if (typeof value === 'object') form(value as Record<string, unknown>, name, out);
    else out.append(name, String(value));
  }
  return out;
}

/** The header as the merchant docs compute it: hex HMAC-SHA256 over "<t>.<raw body>" with the secret's decoded bytes. */
function signatureHeader(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `t=${t},v1=${createHmac('sha256', key).update(`${t}.${body}`).digest('hex')}`;
}

let orders = 0;
function checkoutSession(m: TestMerchant, amount = '10.00') {
  const order = { number: `guard-${process.pid}-${Date.now()}-${++orders}`, amount, currency: 'USD', description: 'Guarded order' };
  return {
    merchant_key: m.key, operation: 'purchase', methods: ['card'], order, success_url: 'https://shop.example/success',
    hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
  };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`merchant request guards (${kind})`, { skip }, () => {
    let t: TestGateway;
    let operator: string;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: `guards-${kind}` });
      operator = await tokenFor(t, 'operator');
    });
    after(() => t?.close());

    const settings = async (m: TestMerchant, patch: Record<string, unknown>) => {
      const res = await adminCall(t.baseUrl, 'PATCH', `/admin/v1/merchants/${m.id}/settings`, operator, patch);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    /** The merchant's signing secret, as the operator hands it over (rotated: the answer shows it once). */
    const secretOf = async (m: TestMerchant): Promise<string> => {
      const res = await adminCall(t.baseUrl, 'POST', `/admin/v1/merchants/${m.id}/signing-secret`, operator);
      assert.equal(res.status, 200, res.text);
      return res.body.signing_secret;
    };
    const send = async (path: string, body: string, contentType: string, headers: Record<string, string> = {}) =>
      readAnswer(await fetch(t.baseUrl + path, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body }));
    const channels = {
      checkout: (m: TestMerchant) => ({ path: '/api/v1/session', body: JSON.stringify(checkoutSession(m)), type: 'application/json' }),
      's2s card': (m: TestMerchant) => ({ path: '/post', body: form(signedCardSale(m, cardSaleFields())).toString(), type: 'application/x-www-form-urlencoded' }),
      's2s apm': (m: TestMerchant) => ({ path: '/apm/post', body: form(signedApmSale(m, apmFields())).toString(), type: 'application/x-www-form-urlencoded' }),
    } as const;
    const succeeded = (channel: keyof typeof channels, res: { status: number; body: any; text: string }) => {
      assert.equal(res.status, 200, `${channel}: ${res.text}`);
      if (channel === 'checkout') assert.match(res.body.redirect_url, /^http/, res.text);
      else assert.equal(res.body.result, 'SUCCESS', `${channel}: ${res.text}`);
    };
    /** The channel's own error body: D3 for Checkout, D3 with result ERROR for the S2S channels. */
    const refused = (channel: keyof typeof channels, res: { status: number; body: any; text: string }, status: number, message: string) => {
      assert.equal(res.status, status, `${channel}: ${res.text}`);
      assert.equal(res.body.http_code, status, res.text);
      assert.equal(res.body.error_code, '100000', res.text);
      assert.equal(res.body.error_message, message, res.text);
      assert.equal(res.body.result, channel === 'checkout' ? undefined : 'ERROR', res.text);
    };

    describe('allowed source addresses', () => {
      it('the admin API stores them, answers them, and refuses what is no address or CIDR block', async () => {
        const m = await t.addMerchant();
        const before = await adminCall(t.baseUrl, 'GET', `/admin/v1/merchants/${m.id}/settings`, operator);
        assert.deepEqual([before.body.allowed_source_addresses, before.body.request_signature], [[], 'optional'], 'both off by default');
        const view = await settings(m, { allowed_source_addresses: ['198.51.100.0/24', '2001:db8::7'] });
        assert.deepEqual(view.allowed_source_addresses, ['198.51.100.0/24', '2001:db8::7']);
        for (const bad of ['198.51.100.0/33', 'example.com', '300.1.1.1']) {
          const res = await adminCall(t.baseUrl, 'PATCH', `/admin/v1/merchants/${m.id}/settings`, operator, { allowed_source_addresses: ['10.0.0.1', bad] });
          assert.equal(res.status, 400, `${bad}: ${res.text}`);
          assert.deepEqual(res.body.errors, [{ error_code: '100000', error_message: 'allowed_source_addresses[1]: This value is not a valid IP address or CIDR block.' }]);
        }
        assert.deepEqual((await settings(m, { allowed_source_addresses: [] })).allowed_source_addresses, []);
      });

      for (const channel of Object.keys(channels) as (keyof typeof channels)[]) {
        it(`${channel}: a listed client address goes through, any other is refused with the channel's error body`, async () => {
          const m = await t.addMerchant();
          const open = await t.addMerchant();
          await settings(m, { allowed_source_addresses: ['198.51.100.0/24', '2001:db8::7'] });
          const from = (merchant: TestMerchant, address?: string) => {
            const r = channels[channel](merchant);
            return send(r.path, r.body, r.type, address ? { 'x-forwarded-for': address } : {});
          };
          succeeded(channel, await from(m, '198.51.100.23'));
          succeeded(channel, await from(m, '2001:db8::7'));
          refused(channel, await from(m, '203.0.113.5'), 403, 'Request source address is not allowed for this merchant.');
          refused(channel, await from(m, '2001:db8::8'), 403, 'Request source address is not allowed for this merchant.');
          refused(channel, await from(m), 403, 'Request source address is not allowed for this merchant.');
          succeeded(channel, await from(open, '203.0.113.5'));
        });
      }
    });

    describe('the request signature header', () => {
      it('a replayed refund is refused: the payment is refunded once', async () => {
        const m = await t.addMerchant();
        const secret = await secretOf(m);
        const paid = await send('/post', form(signedCardSale(m, cardSaleFields({ order_amount: '5.00' }))).toString(), 'application/x-www-form-urlencoded');
        assert.equal(paid.body.status, 'SETTLED', paid.text);
        const id = paid.body.trans_id as string;
        const refund = form({ action: 'CREDITVOID', client_key: m.key, trans_id: id, amount: '1.00', hash: f2(EMAIL, m.password, id, '4111111111111111') }).toString();
        const header = { 'portcullis-signature': signatureHeader(secret, refund) };
        const first = await send('/post', refund, 'application/x-www-form-urlencoded', header);
        assert.equal(first.body.result, 'ACCEPTED', first.text);
        for (let i = 0; i < 3; i++) refused('s2s card', await send('/post', refund, 'application/x-www-form-urlencoded', header), 401, 'Portcullis-Signature: Request signature was already used.');
        // 4.00 of the 5.00 are left to refund: the replays refunded nothing.
        const rest = form({ action: 'CREDITVOID', client_key: m.key, trans_id: id, amount: '4.00', hash: f2(EMAIL, m.password, id, '4111111111111111') }).toString();
        const last = await send('/post', rest, 'application/x-www-form-urlencoded', { 'portcullis-signature': signatureHeader(secret, rest) });
        assert.equal(last.body.result, 'ACCEPTED', last.text);
      });

      it('an amount changed under a signature is refused, though the F1 hash (which binds no amount) still matches', async () => {
        const m = await t.addMerchant();
        const secret = await secretOf(m);
        const signedFor = form(signedCardSale(m, cardSaleFields({ order_amount: '1.00', order_currency: 'USD' }))).toString();
        const tampered = signedFor.replace('order_amount=1.00', 'order_amount=999.00').replace('order_currency=USD', 'order_currency=EUR');
        assert.notEqual(tampered, signedFor);
        const header = { 'portcullis-signature': signatureHeader(secret, signedFor) };
        refused('s2s card', await send('/post', tampered, 'application/x-www-form-urlencoded', header), 401, 'Portcullis-Signature: Request signature is not valid.');
        const ok = await send('/post', signedFor, 'application/x-www-form-urlencoded', header);
        assert.equal(ok.body.amount, '1.00', ok.text);
        const hashOnly = await send('/post', tampered, 'application/x-www-form-urlencoded');
        assert.deepEqual([hashOnly.body.amount, hashOnly.body.currency], ['999.00', 'EUR'], 'without the header the hash alone lets it through');
        // On Checkout's JSON body, a field its hash does not bind (where the payer is sent back to).
        const session = JSON.stringify(checkoutSession(m, '1.00'));
        const changed = session.replace('https://shop.example/success', 'https://attacker.example/success');
        assert.notEqual(changed, session);
        refused('checkout', await send('/api/v1/session', changed, 'application/json', { 'portcullis-signature': signatureHeader(secret, session) }), 401, 'Portcullis-Signature: Request signature is not valid.');
        succeeded('checkout', await send('/api/v1/session', changed, 'application/json'));
        // A signature with another merchant's secret, or none of the form, is not valid either.
        const other = await secretOf(await t.addMerchant());
        refused('checkout', await send('/api/v1/session', session, 'application/json', { 'portcullis-signature': signatureHeader(other, session) }), 401, 'Portcullis-Signature: Request signature is not valid.');
        refused('checkout', await send('/api/v1/session', session, 'application/json', { 'portcullis-signature': 'sha256=abc' }), 401, 'Portcullis-Signature: Request signature is not valid.');
      });

      it('a timestamp more than 5 minutes from the gateway\'s clock is refused; within it, accepted', async () => {
        const m = await t.addMerchant();
        const secret = await secretOf(m);
        const now = Math.floor(Date.now() / 1000);
        for (const t0 of [now - 330, now + 330]) {
          const body = JSON.stringify(checkoutSession(m));
          refused('checkout', await send('/api/v1/session', body, 'application/json', { 'portcullis-signature': signatureHeader(secret, body, t0) }), 401,
            'Portcullis-Signature: Request signature timestamp is outside the 5-minute window.');
        }
        for (const t0 of [now - 270, now + 270]) {
          const body = JSON.stringify(checkoutSession(m));
          succeeded('checkout', await send('/api/v1/session', body, 'application/json', { 'portcullis-signature': signatureHeader(secret, body, t0) }));
        }
      });

      for (const channel of Object.keys(channels) as (keyof typeof channels)[]) {
        it(`${channel}: required refuses a request without the header; a signed one goes through; optional needs none`, async () => {
          const m = await t.addMerchant();
          const secret = await secretOf(m);
          const unsigned = channels[channel](m);
          succeeded(channel, await send(unsigned.path, unsigned.body, unsigned.type));
          assert.equal((await settings(m, { request_signature: 'required' })).request_signature, 'required');
          const again = channels[channel](m);
          refused(channel, await send(again.path, again.body, again.type), 401, 'Portcullis-Signature: Request signature is required.');
          const signed = channels[channel](m);
          succeeded(channel, await send(signed.path, signed.body, signed.type, { 'portcullis-signature': signatureHeader(secret, signed.body) }));
          assert.equal((await settings(m, { request_signature: 'optional' })).request_signature, 'optional');
          const relaxed = channels[channel](m);
          succeeded(channel, await send(relaxed.path, relaxed.body, relaxed.type));
        });
      }

      it('the used signatures live in the store (every node sees them) and those out of the window are pruned', async () => {
        const m = await t.addMerchant();
        const secret = await secretOf(m);
        const body = JSON.stringify(checkoutSession(m));
        const old = Math.floor(Date.now() / 1000) - 290;
        succeeded('checkout', await send('/api/v1/session', body, 'application/json', { 'portcullis-signature': signatureHeader(secret, body, old) }));
        const stored = await t.store.db.query<{ expires_at: Date }>('SELECT expires_at FROM request_signature_uses WHERE merchant_id = $1', [m.id]);
        assert.equal(stored.length, 1);
        assert.equal(new Date(stored[0]!.expires_at).getTime(), (old + 300) * 1000);
        // A row whose window has closed goes with the next claim.
        await t.store.db.query("UPDATE request_signature_uses SET expires_at = now() - interval '1 second' WHERE merchant_id = $1", [m.id]);
        const next = JSON.stringify(checkoutSession(m));
        succeeded('checkout', await send('/api/v1/session', next, 'application/json', { 'portcullis-signature': signatureHeader(secret, next) }));
        assert.equal((await t.store.db.query('SELECT 1 FROM request_signature_uses WHERE merchant_id = $1', [m.id])).length, 1);
      });
    });
  });
}
