/**
 * The SDK against a real gateway on a real port, on both stores: every Checkout, hosted-fields, S2S CARD
 * and S2S APM call signed by the SDK and accepted by the gateway, typed errors with the D3 body, retries
 * under one Idempotency-Key, and the callbacks and return URLs verified by the SDK.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../../../test/support/stores.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { startListener, type Listener, type ReceivedCallback } from '../../../test/support/merchant.ts';
import { mobileMoneyPayout, representative } from '../../../test/apm/support.ts';
import {
  AuthenticationError, InvalidRequestError, Portcullis, PortcullisConnectionError, SignatureVerificationError, type PaymentIdentity,
} from '../src/index.ts';

let orders = 0;
const orderNo = (prefix: string) => `${prefix}-${process.pid}-${Date.now()}-${++orders}`;

/** Pays a hosted Checkout session through the page's form, as the payer's browser would; answers the merchant return URL. */
async function payOnPage(redirectUrl: string, expiry = '01/38'): Promise<URL> {
  const url = new URL(redirectUrl);
  const res = await fetch(`${url.origin}${url.pathname}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: expiry, card_cvv: '123', card_holder: 'John Doe' }).toString(),
  });
  const html = (await res.text()).replace(/&amp;/g, '&');
  const location = res.headers.get('location') ?? /https:\/\/shop\.example\/[a-z]+\?[^"'<\s]+/.exec(html)?.[0];
  assert.ok(location, `the page sends the payer back to the shop (HTTP ${res.status})`);
  return new URL(location);
}

const SALE_PAYER = {
  payer_first_name: 'John', payer_last_name: 'Doe', payer_email: 'doe@example.com', payer_phone: '+441234567890', payer_ip: '203.0.113.9',
  payer_address: '1 Main Street', payer_country: 'GB', payer_city: 'London', payer_zip: 'SW1A1AA',
};
const CARD = { card_number: '4111111111111111', card_exp_month: '01', card_exp_year: '2038', card_cvv2: '123' };
const BILLING = { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' };
/** What every hosted session of these tests carries, so that the page asks the payer for nothing else. */
const PAGE = { success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel', customer: { name: 'John Doe', email: 'success@gmail.com' }, billing_address: BILLING };
const ADMIN_TOKEN = 'sdk-test-operator-token-0123456789abcdef';
const IDENTITY: PaymentIdentity = { payerEmail: 'doe@example.com', card: '4111111111111111' };

for (const { kind, skip } of await storeKinds()) {
  describe(`Node SDK against the gateway (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    let sdk: Portcullis;

    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, mids: [{ paymentMode: 'SMS/DMS', cardOnFileSupport: true }], adminToken: ADMIN_TOKEN });
      sdk = new Portcullis({ baseUrl: gw.baseUrl, merchantKey: gw.merchant.key, password: gw.merchant.password, retryDelayMs: 20 });
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    const callbackOf = async (match: (c: ReceivedCallback) => boolean) => (await listener.waitForMatching(match, 1, 20_000))[0]!;

    describe('Checkout', () => {
      it('opens a session, is paid, verifies the return URL and the callback, and reads the status', async () => {
        const order = { number: orderNo('CO'), amount: '10.00', currency: 'USD', description: 'Gold plan' };
        const { redirect_url } = await sdk.checkout.createSession({ operation: 'purchase', order, ...PAGE });
        const back = await payOnPage(redirect_url);
        const returned = sdk.callbacks.verifyReturnUrl(back, order);
        assert.equal(returned.order_id, order.number);
        assert.throws(() => sdk.callbacks.verifyReturnUrl(back, { ...order, amount: '11.00' }), SignatureVerificationError);
        const cb = await callbackOf((c) => c.fields.id === returned.payment_id && c.fields.type === 'sale');
        const verified = sdk.callbacks.verifyCheckout(cb.raw);
        assert.deepEqual([verified.status, verified.order_status, verified.order_number], ['success', 'settled', order.number]);
        assert.throws(() => sdk.callbacks.verifyCheckout(cb.raw.replace('order_amount=10.00', 'order_amount=1.00')), SignatureVerificationError);
        const status = await sdk.checkout.status({ payment_id: returned.payment_id });
        assert.deepEqual([status.status, status.order], ['settled', order]);
        const byOrder = await sdk.checkout.status({ order_id: order.number, size: 10 });
        assert.deepEqual(byOrder.map((s) => s.payment_id), [returned.payment_id]);
        assert.equal((await sdk.checkout.refund({ payment_id: returned.payment_id, amount: '4.00' })).result, 'accepted');
        assert.equal((await sdk.checkout.status({ order_id: order.number })).payment_id, returned.payment_id);
      });

      it('holds the funds (auth), captures in part, and voids a settled payment', async () => {
        const order = { number: orderNo('DMS'), amount: '20.00', currency: 'EUR', description: 'Hold' };
        const held = sdk.callbacks.verifyReturnUrl(await payOnPage((await sdk.checkout.createSession({ operation: 'purchase', auth: true, order, ...PAGE })).redirect_url), order);
        assert.equal((await sdk.checkout.status({ payment_id: held.payment_id })).status, 'pending');
        const captured = await sdk.checkout.capture({ payment_id: held.payment_id, amount: '15.00' });
        assert.deepEqual([captured.status, captured.trans_status], ['settled', 'SUCCESS']);
        const other = { number: orderNo('VOID'), amount: '5.00', currency: 'EUR', description: 'Void me' };
        const paid = sdk.callbacks.verifyReturnUrl(await payOnPage((await sdk.checkout.createSession({ operation: 'purchase', order: other, ...PAGE })).redirect_url), other);
        const voided = await sdk.checkout.void({ payment_id: paid.payment_id });
        assert.deepEqual([voided.status, voided.payment_status], ['SUCCESS', 'void']);
      });

      it('charges a recurring chain, refuses a retry of a charge that was not declined, and pays out to a card', async () => {
        const order = { number: orderNo('REC'), amount: '9.99', currency: 'USD', description: 'Monthly' };
        const first = sdk.callbacks.verifyReturnUrl(await payOnPage((await sdk.checkout.createSession({ operation: 'purchase', recurring_init: true, order, ...PAGE })).redirect_url), order);
        const token = (await sdk.checkout.status({ payment_id: first.payment_id })).recurring_token;
        assert.ok(token, 'the initiating payment carries its recurring_token');
        const charge = await sdk.checkout.recurring({ recurring_init_trans_id: first.payment_id, recurring_token: token, order: { number: orderNo('REC'), amount: '9.99', description: 'Month 2' } });
        assert.equal(charge.status, 'settled');
        // The hash is checked first: "Incorrect transaction" proves the SDK's retry hash was accepted.
        await assert.rejects(sdk.checkout.retry({ payment_id: charge.payment_id }), (err: unknown) => err instanceof InvalidRequestError && err.body.error_message === 'Incorrect transaction');
        const credit = await sdk.checkout.cardCredit({ order_id: orderNo('CC'), order_amount: '3.00', order_currency: 'USD', order_description: 'Payout', card_number: '4601541833776519' });
        assert.equal(credit.result, 'accepted');
        const cb = await callbackOf((c) => c.fields.id === credit.payment_id && c.fields.status === 'success');
        assert.equal(sdk.callbacks.verifyCheckout(cb.raw).type, 'credit');
      });

      it('hosted payment fields: session token, update, the fields collect the card, the charge is verified', async () => {
        const order = { number: orderNo('HPF'), amount: '10.00', currency: 'USD', description: 'Hosted fields' };
        const { token } = await sdk.checkout.sessionToken({ operation: 'purchase', order, return_url: 'https://shop.example/return' });
        assert.throws(() => sdk.checkout.updateSession(token, { order: { amount: '12.00' } }), /needs the session's current order/);
        assert.deepEqual(await sdk.checkout.updateSession(token, { order: { amount: '12.00' } }, order), { result: 'success' });
        // What the gateway's own card frame posts from the payer's browser (not a merchant call).
        const collected = await gw.postJson('/hosted-fields/collect', { card_number: '4111111111111111', card_expiry: '01/38', card_cvv: '123' }, { origin: gw.baseUrl, token });
        assert.equal(collected.status, 200, collected.text);
        const charged = await sdk.checkout.processCard(token, 'purchase', { name: 'Jane Roe', email: 'success@gmail.com', billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' } });
        assert.equal(charged.result, 'success');
        const query = new URLSearchParams(charged.return_url_query_params);
        assert.equal(sdk.callbacks.verifyReturnUrl(`https://shop.example/return?${query}`, { ...order, amount: '12.00' }).payment_id, charged.public_id);
      });
    });

    describe('S2S CARD', () => {
      const sale = (extra: Record<string, string> = {}) => sdk.s2sCard.sale({
        order_id: orderNo('S2S'), order_amount: '10.00', order_currency: 'USD', order_description: 'S2S order', ...SALE_PAYER, ...CARD, term_url_3ds: 'https://shop.example/3ds', ...extra,
      });

      it('SALE settles, its callback verifies with Formula 2, and the lookups sign with F2, F7 and the trans_id recipe', async () => {
        const paid = await sale();
        assert.deepEqual([paid.result, paid.status], ['SUCCESS', 'SETTLED']);
        const cb = await callbackOf((c) => c.fields.trans_id === paid.trans_id && c.fields.action === 'SALE');
        assert.equal(sdk.callbacks.verifyS2sCard(cb.raw, { payerEmail: 'doe@example.com' }).status, 'SETTLED');
        assert.throws(() => sdk.callbacks.verifyS2sCard(cb.raw, { payerEmail: 'other@example.com' }), SignatureVerificationError);
        assert.equal((await sdk.s2sCard.getTransStatus({ trans_id: paid.trans_id })).status, 'SETTLED');
        assert.equal((await sdk.s2sCard.getTransStatus({ trans_id: paid.trans_id }, IDENTITY)).status, 'SETTLED');
        assert.equal((await sdk.s2sCard.getTransStatusByOrder({ order_id: paid.order_id }, IDENTITY)).trans_id, paid.trans_id);
        assert.equal((await sdk.s2sCard.getTransStatusByOrder({ order_id: paid.order_id })).trans_id, paid.trans_id);
        const details = await sdk.s2sCard.getTransDetails({ trans_id: paid.trans_id }, { payerEmail: 'doe@example.com', card: cb.fields.card! });
        assert.deepEqual([details.amount, details.currency, details.transactions.length > 0], ['10.00', 'USD', true]);
        assert.equal((await sdk.s2sCard.creditvoid({ trans_id: paid.trans_id, amount: '2.00' })).result, 'ACCEPTED');
      });

      it('the callback\'s webhook-signature headers verify with the merchant\'s whsec_ secret; the id is the X-Callback-Id', async () => {
        // The operator rotates the merchant's signing secret and hands the new one (shown once) to the merchant.
        const rotated = await fetch(`${gw.baseUrl}/admin/v1/merchants/${gw.merchant.id}/signing-secret`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        assert.equal(rotated.status, 200);
        const { signing_secret: secret } = await rotated.json() as { signing_secret: string };
        assert.match(secret, /^whsec_/);
        const signed = new Portcullis({ baseUrl: gw.baseUrl, merchantKey: gw.merchant.key, password: gw.merchant.password, webhookSecret: secret });
        const paid = await sale();
        const cb = await callbackOf((c) => c.fields.trans_id === paid.trans_id && c.fields.action === 'SALE');
        const { id } = signed.callbacks.verifyWebhook(cb.raw, cb.headers);
        assert.equal(id, cb.headers['x-callback-id']);
        assert.equal(signed.callbacks.verifyS2sCard(cb.raw, { payerEmail: 'doe@example.com' }).trans_id, paid.trans_id, 'and the platform hash');
        assert.throws(() => signed.callbacks.verifyWebhook(cb.raw.replace('SETTLED', 'DECLINED'), cb.headers), SignatureVerificationError);
        const stale = new Date(Number(cb.headers['webhook-timestamp']) * 1000 + 10 * 60_000);
        assert.throws(() => signed.callbacks.verifyWebhook(cb.raw, cb.headers, { now: stale }), SignatureVerificationError, 'a replay ten minutes later');
      });

      it('with webhookSecret, every call carries the Portcullis-Signature header: a merchant requiring it accepts them; unsigned calls are refused (issue 25, item 5)', async () => {
        const m = await gw.addMerchant({ mids: [{ paymentMode: 'SMS/DMS' }] });
        const admin = (method: string, path: string, body?: unknown) => fetch(`${gw.baseUrl}/admin/v1/merchants/${m.id}${path}`, {
          method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
        });
        const { signing_secret: secret } = await (await admin('POST', '/signing-secret')).json() as { signing_secret: string };
        assert.equal((await admin('PATCH', '/settings', { request_signature: 'required' })).status, 200);
        const signing = new Portcullis({ baseUrl: gw.baseUrl, merchantKey: m.key, password: m.password, webhookSecret: secret, retryDelayMs: 20 });
        const unsigned = new Portcullis({ baseUrl: gw.baseUrl, merchantKey: m.key, password: m.password, webhookSecret: secret, signRequests: false, retryDelayMs: 20 });
        const paid = await signing.s2sCard.sale({ order_id: orderNo('SIG'), order_amount: '3.00', order_currency: 'USD', order_description: 'Signed', ...CARD, ...SALE_PAYER, term_url_3ds: 'https://shop.example/3ds' });
        assert.equal(paid.status, 'SETTLED');
        assert.equal((await signing.s2sCard.creditvoid({ trans_id: paid.trans_id, amount: '1.00' }, IDENTITY)).result, 'ACCEPTED');
        const session = await signing.checkout.createSession({ operation: 'purchase', order: { number: orderNo('SIG'), amount: '2.00', currency: 'USD', description: 'Signed' }, ...PAGE });
        assert.match(session.redirect_url, /^http/);
        await assert.rejects(
          unsigned.s2sCard.creditvoid({ trans_id: paid.trans_id, amount: '1.00' }, IDENTITY),
          (err: unknown) => err instanceof AuthenticationError && err.body.error_message === 'Portcullis-Signature: Request signature is required.',
        );
      });

      it('auth=Y, CAPTURE (F2) and VOID (trans_id recipe); DEBIT and CREDIT2CARD', async () => {
        const held = await sale({ auth: 'Y' });
        assert.equal(held.status, 'PENDING');
        const captured = await sdk.s2sCard.capture({ trans_id: held.trans_id }, IDENTITY);
        assert.deepEqual([captured.result, captured.status, captured.amount], ['SUCCESS', 'SETTLED', '10.00']);
        const voided = await sdk.s2sCard.void({ trans_id: held.trans_id });
        assert.deepEqual([voided.result, voided.status], ['SUCCESS', 'VOID']);
        const debit = await sdk.s2sCard.debit({
          order_id: orderNo('DEB'), order_amount: '7.00', order_currency: 'USD', order_description: 'Debit', ...CARD, payer_ip: '203.0.113.9', term_url_3ds: 'https://shop.example/3ds',
        });
        assert.equal(debit.result, 'SUCCESS');
        const payout = await sdk.s2sCard.credit2card({ order_id: orderNo('C2C'), order_amount: '5.00', order_currency: 'USD', order_description: 'Payout', card_number: '4601541833776519' });
        assert.deepEqual([payout.action, payout.result], ['CREDIT2CARD', 'SUCCESS']);
        const cb = await callbackOf((c) => c.fields.trans_id === payout.trans_id && c.fields.action === 'CREDIT2CARD');
        assert.equal(sdk.callbacks.verifyS2sCard(cb.raw, { card: '4601541833776519' }).result, 'SUCCESS', 'Formula 6: the payout card, no e-mail');
      });

      it('3-D Secure answers the redirect; a recurring chain is charged (F1 over the first payment) and RETRY signs F1', async () => {
        const challenged = await sale({ card_exp_month: '05' });
        assert.deepEqual([challenged.result, challenged.status, typeof challenged.redirect_url], ['REDIRECT', '3DS', 'string']);
        const first = await sale({ recurring_init: 'Y' });
        assert.ok(first.recurring_token);
        const charge = await sdk.s2sCard.recurringSale({
          order_id: orderNo('RS'), order_amount: '3.00', order_description: 'Month 2', recurring_first_trans_id: first.trans_id, recurring_token: first.recurring_token,
        }, IDENTITY);
        assert.deepEqual([charge.action, charge.result], ['RECURRING_SALE', 'SUCCESS']);
        const debitChain = await sdk.s2sCard.debit({
          order_id: orderNo('DEB'), order_amount: '7.00', order_currency: 'USD', order_description: 'Debit', ...CARD, payer_email: 'doe@example.com', payer_ip: '203.0.113.9', term_url_3ds: 'https://shop.example/3ds', recurring_init: 'Y',
        });
        const debitCharge = await sdk.s2sCard.recurringDebit({
          order_id: orderNo('RD'), order_amount: '2.00', order_description: 'Debit 2', recurring_first_trans_id: debitChain.trans_id, recurring_token: debitChain.recurring_token!,
        }, IDENTITY);
        assert.equal(debitCharge.action, 'RECURRING_DEBIT');
        await assert.rejects(sdk.s2sCard.retry({ trans_id: charge.trans_id }, IDENTITY), (err: unknown) => err instanceof InvalidRequestError && err.body.result === 'ERROR' && err.body.error_message === 'Incorrect transaction');
      });

      it('schedules: create (F3), info, update, pause, run, deschedule and delete (F4)', async () => {
        const created = await sdk.s2sCard.createSchedule({ name: 'Gold monthly', interval_length: 1, interval_unit: 'month', payments_count: 12 });
        const id = created.schedule_id;
        assert.deepEqual([(await sdk.s2sCard.scheduleInfo({ schedule_id: id })).name, created.result], ['Gold monthly', 'SUCCESS']);
        assert.equal((await sdk.s2sCard.updateSchedule({ schedule_id: id, name: 'Gold' })).result, 'SUCCESS');
        assert.equal((await sdk.s2sCard.pauseSchedule({ schedule_id: id })).result, 'SUCCESS');
        assert.equal((await sdk.s2sCard.scheduleInfo({ schedule_id: id })).paused, 'Y');
        assert.equal((await sdk.s2sCard.runSchedule({ schedule_id: id })).result, 'SUCCESS');
        const chain = await sale({ recurring_init: 'Y', schedule_id: id });
        assert.equal((await sdk.s2sCard.deschedule({ schedule_id: id, recurring_token: chain.recurring_token! })).action, 'DESCHEDULE');
        const spare = await sdk.s2sCard.createSchedule({ name: 'Spare', interval_length: 7, interval_unit: 'day', payments_count: 2 });
        assert.equal((await sdk.s2sCard.deleteSchedule({ schedule_id: spare.schedule_id })).result, 'SUCCESS');
      });
    });

    describe('S2S APM', () => {
      const direct = representative('extra_fields', 's2s_apm');
      const parameters = Object.fromEntries(direct.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345']));
      const apmSale = (extra: Record<string, string> = {}) => sdk.s2sApm.sale({
        brand: direct.key, order_id: orderNo('APM'), order_amount: '12.50', order_currency: 'EUR', order_description: 'APM order', payer_first_name: 'Jane', payer_last_name: 'Roe',
        payer_email: 'success@gmail.com', payer_phone: '+38160123456', payer_country: 'RS', payer_ip: '203.0.113.7', return_url: 'https://shop.example/return', parameters, ...extra,
      });

      it('SALE settles and its callback verifies; GET_TRANS_STATUS, VOID and CREDITVOID sign their own recipes', async () => {
        const paid = await apmSale();
        assert.deepEqual([paid.result, paid.status], ['SUCCESS', 'SETTLED']);
        const cb = await callbackOf((c) => c.fields.trans_id === paid.trans_id && c.fields.action === 'SALE');
        assert.equal(sdk.callbacks.verifyS2sApm(cb.raw).status, 'SETTLED');
        assert.equal((await sdk.s2sApm.getTransStatus({ trans_id: paid.trans_id })).status, 'SETTLED');
        assert.equal((await sdk.s2sApm.creditvoid({ trans_id: paid.trans_id, amount: '2.50' })).result, 'ACCEPTED');
        const other = await apmSale();
        assert.deepEqual([(await sdk.s2sApm.void({ trans_id: other.trans_id })).status], ['VOID']);
      });

      it('auth=Y holds the funds and CAPTURE settles them; CREDIT2VIRTUAL pays out with its callback verified', async () => {
        const held = await apmSale({ auth: 'Y' });
        assert.equal(held.status, 'PENDING');
        assert.equal((await sdk.s2sApm.capture({ trans_id: held.trans_id })).status, 'SETTLED');
        const payout = await sdk.s2sApm.credit2virtual({
          brand: mobileMoneyPayout().key, order_id: orderNo('C2V'), order_amount: '1500', order_currency: 'XOF', order_description: 'Payout',
          payee_first_name: 'Kofi', payee_last_name: 'Mensah', payee_email: 'success@gmail.com',
          parameters: { mobile_money_operator: 'mtn-ci', mobile_number: '+2250701020304', customer_email: 'success@gmail.com' },
        });
        assert.deepEqual([payout.result, payout.status], ['SUCCESS', 'SETTLED']);
        const cb = await callbackOf((c) => c.fields.trans_id === payout.trans_id && c.fields.action === 'CREDIT2VIRTUAL');
        assert.equal(sdk.callbacks.verifyS2sApm(cb.raw).action, 'CREDIT2VIRTUAL');
      });
    });

    describe('errors and retries', () => {
      it('a wrong password is an AuthenticationError carrying the D3 body; bad fields an InvalidRequestError naming them', async () => {
        const wrong = new Portcullis({ baseUrl: gw.baseUrl, merchantKey: gw.merchant.key, password: 'not-the-password' });
        const order = { number: orderNo('BAD'), amount: '1.00', currency: 'USD', description: 'Bad hash' };
        const err = await wrong.checkout.createSession({ operation: 'purchase', order, success_url: 'https://shop.example/s', cancel_url: 'https://shop.example/c' }).catch((e: unknown) => e);
        assert.ok(err instanceof AuthenticationError);
        assert.equal(err.status, 401);
        assert.deepEqual([err.body.http_code, err.body.error_code, err.body.error_message], [401, '100000', 'hash: Hash is not valid.']);
        const s2s = await wrong.s2sCard.getTransStatus({ trans_id: 'no-such' }).catch((e: unknown) => e);
        assert.ok(s2s instanceof InvalidRequestError, 'an unknown trans_id is named before the hash');
        assert.deepEqual([s2s.body.result, s2s.code, s2s.body.error_message], ['ERROR', '101000', 'Transaction does not exist.']);
        const invalid = await sdk.checkout.createSession({ operation: 'purchase', order: { ...order, amount: '0' }, success_url: 'not a url', cancel_url: 'https://shop.example/c' }).catch((e: unknown) => e);
        assert.ok(invalid instanceof InvalidRequestError);
        assert.ok(invalid.fieldErrors.some((f) => f.field === 'success_url' && f.message === 'This value is not a valid URL.'), JSON.stringify(invalid.body));
      });

      it('an answer lost on the way is retried under the same Idempotency-Key: one payment, the first answer replayed', async () => {
        const keys: string[] = [];
        let replayed = '';
        let drops = 1;
        const lossy: typeof fetch = async (input, init) => {
          keys.push(new Headers(init?.headers).get('idempotency-key') ?? '');
          const res = await fetch(input, init);
          replayed = res.headers.get('idempotent-replayed') ?? '';
          if (drops-- > 0) throw new TypeError('socket hang up');
          return res;
        };
        const flaky = new Portcullis({ baseUrl: gw.baseUrl, merchantKey: gw.merchant.key, password: gw.merchant.password, fetch: lossy, retryDelayMs: 10 });
        const orderId = orderNo('IDEM');
        const paid = await flaky.s2sCard.sale({ order_id: orderId, order_amount: '10.00', order_currency: 'USD', order_description: 'Once', ...SALE_PAYER, ...CARD, term_url_3ds: 'https://shop.example/3ds' });
        assert.equal(paid.status, 'SETTLED');
        assert.equal(keys.length, 2);
        assert.equal(keys[0], keys[1], 'the retry reuses the key');
        assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
        assert.equal(replayed, 'true', 'the gateway replayed the stored answer');
        const all = await sdk.checkout.status({ order_id: orderId, size: 100 });
        assert.equal(all.length, 1, 'one payment for the order');
      });

      it('a hosted-fields charge is not retried after a lost answer (no key protects it): one attempt, a connection error', async () => {
        let calls = 0;
        const dropping: typeof fetch = async () => {
          calls++;
          throw new TypeError('socket hang up');
        };
        const client = new Portcullis({ baseUrl: gw.baseUrl, merchantKey: gw.merchant.key, password: gw.merchant.password, fetch: dropping, retryDelayMs: 1 });
        await assert.rejects(client.checkout.processCard('token', 'purchase', { name: 'Jane Roe' }), PortcullisConnectionError);
        assert.equal(calls, 1);
      });

      it('5xx answers are retried with the same key, and given up after maxRetries with the key in the error', async () => {
        const keys: string[] = [];
        const failing: typeof fetch = async (_input, init) => {
          keys.push(new Headers(init?.headers).get('idempotency-key') ?? '');
          return new Response(JSON.stringify({ http_code: 503, error_code: '100000', error_message: 'Internal error.' }), { status: 503 });
        };
        const client = new Portcullis({ baseUrl: gw.baseUrl, merchantKey: gw.merchant.key, password: gw.merchant.password, fetch: failing, retryDelayMs: 5, maxRetries: 2 });
        const err = await client.checkout.status({ payment_id: 'x' }, { idempotencyKey: 'my-key-1' }).catch((e: unknown) => e);
        assert.equal((err as { status?: number }).status, 503);
        assert.equal((err as { idempotencyKey?: string }).idempotencyKey, 'my-key-1');
        assert.deepEqual(keys, ['my-key-1', 'my-key-1', 'my-key-1']);
      });
    });
  });
}
