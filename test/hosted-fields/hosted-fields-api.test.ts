/**
 * Hosted payment fields over HTTP, on both stores: session/token, session/update, the field frame's collection
 * and processing/{purchase|debit}/card, with the platform's hash formulas, the error cases of each, and the
 * CVV's short life in memory.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener, platformBody } from '../support/merchant.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { buildApp } from '../../src/app.ts';
import {
  callbackHashOk, collect, newOrder, openToken, processing, processingBody, spyOnConnector, status, tokenBody, update,
  signedChange,
} from './support.ts';

const TOKEN = /^[A-Za-z0-9_-]{32}$/;

for (const { kind, skip } of await storeKinds()) {
  describe(`hosted payment fields API (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let calls: ReturnType<typeof spyOnConnector>;
    const clock = new ManualClock('2030-01-15T10:00:00Z');

    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { clock, workers: true, notificationUrl: listener.url, settings: { callbackFields: ['browser'], statusFields: ['card'] } });
      calls = spyOnConnector(t);
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    const callbackOf = async (number: string, orderStatus: string) => {
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === number && c.fields.order_status === orderStatus, 1);
      assert.ok(cb);
      assert.ok(callbackHashOk(t.merchant, cb.fields), 'callback hash as the merchant computes it');
      return cb.fields;
    };

    describe('POST /api/v1/session/token', () => {
      it('answers {token} and opens the order in status prepare', async () => {
        const order = newOrder();
        const res = await t.postJson('/api/v1/session/token', tokenBody(t.merchant, order));
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body), ['token']);
        assert.match(res.body.token, TOKEN);
        const st = await status(t, { order_id: order.number });
        assert.equal(st.body.status, 'prepare');
        assert.deepEqual(st.body.order, { number: order.number, amount: '10.00', currency: 'USD', description: order.description });
      });

      it('requires return_url and checks every field as the session does', async () => {
        const order = newOrder();
        const cases: [Record<string, unknown>, string][] = [
          [{ return_url: undefined }, 'return_url: This value should not be blank.'],
          [{ return_url: 'not a url' }, 'return_url: This value is not a valid URL.'],
          [{ operation: 'credit' }, 'operation: The value you selected is not a valid choice.'],
          [{ methods: ['card', 'paypal'] }, 'methods[1]: The value you selected is not a valid choice.'],
          [{ customer: { ip: '999.1.1.1' } }, 'customer.ip: This value is not a valid IP address.'],
          [{ session_expiry: 0 }, 'session_expiry: This value should be between 1 and 720.'],
        ];
        for (const [patch, message] of cases) {
          const body: Record<string, unknown> = { ...tokenBody(t.merchant, order), ...patch };
          for (const [k, v] of Object.entries(patch)) if (v === undefined) delete body[k];
          const res = await t.postJson('/api/v1/session/token', body);
          assert.equal(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
          assert.ok(res.body.errors.some((e: { error_message: string }) => e.error_message === message), `${message} in ${res.text}`);
        }
        const zero = await t.postJson('/api/v1/session/token', tokenBody(t.merchant, newOrder('hpf', { amount: '0.00' })));
        assert.equal(zero.status, 400);
        assert.equal(zero.body.errors[0].error_message, 'order.amount: This value should be greater than 0.');
        const huge = await t.postJson('/api/v1/session/token', tokenBody(t.merchant, newOrder('hpf', { amount: '99999999999999999999999' })));
        assert.equal(huge.status, 400, huge.text);
      });

      it('answers 401 for a wrong hash or an unknown merchant_key', async () => {
        const body = tokenBody(t.merchant, newOrder());
        const bad = await t.postJson('/api/v1/session/token', { ...body, hash: 'f'.repeat(40) });
        assert.deepEqual(platformBody(bad.body), { http_code: 401, error_code: '100000', error_message: 'hash: Hash is not valid.' });
        const unknown = await t.postJson('/api/v1/session/token', { ...body, merchant_key: 'nobody' });
        assert.deepEqual(unknown.body, { http_code: 401, error_code: '100000', error_message: 'merchant_key: Merchant not found.' });
      });
    });

    describe('the card path and processing', () => {
      it('charges the collected card: success, signed return parameters, callback with customer_ip and browser details', async () => {
        const order = newOrder('ok', { amount: '12.34' });
        const token = await openToken(t, order);
        const collected = await collect(t, token, { cvv: '739' });
        assert.equal(collected.status, 200, collected.text);
        assert.deepEqual(collected.body, { result: 'success', card: { brand: 'visa', last4: '1111', expiry: '01/2038' } });
        const before = calls.length;
        const res = await processing(t, token);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.result, 'success');
        const id = res.body.public_id as string;
        assert.match(id, /^[0-9a-f-]{36}$/);
        const q = res.body.return_url_query_params;
        assert.equal(q.payment_id, id);
        assert.equal(q.order_id, order.number);
        assert.ok(q.trans_id);
        assert.equal(q.hash, checkoutHash(t.merchant.password, id, order.number, '12.34', 'USD', order.description));

        // The connector got the card from the vault, the CVV from memory, the payer's IP and acceptHeaders.
        const call = calls[before];
        assert.ok(call);
        assert.equal(call.card.pan, '4111111111111111');
        assert.equal(call.card.cvv, '739');
        assert.equal(call.payerIp, '127.0.0.1', 'without customer.ip, the IP of the system that asked for the token');
        assert.equal(call.browser?.acceptHeaders, 'text/html,application/xhtml+xml');
        assert.equal(call.amount, 1234n);

        const cb = await callbackOf(order.number, 'settled');
        assert.equal(cb.type, 'sale');
        assert.equal(cb.status, 'success');
        assert.equal(cb.card, '411111****1111');
        assert.equal(cb.customer_ip, '127.0.0.1');
        assert.equal(cb.customer_name, 'Jane Roe');
        assert.equal(cb.browser_accept_headers, 'text/html,application/xhtml+xml');
        assert.equal(cb.browser_language, 'en-GB');
        const st = await status(t, { payment_id: id });
        assert.equal(st.body.status, 'settled');
        assert.equal(st.body.card, '411111****1111');

        // Nothing at rest holds the PAN or the CVV.
        const rows = await t.store.db.query<{ text: string }>(
          `SELECT request::text AS text FROM sessions WHERE id = $1
           UNION ALL SELECT (payer::text || details::text) FROM payments WHERE order_id = $2
           UNION ALL SELECT fields::text FROM callbacks WHERE payment_id = $3`, [token, order.number, id]);
        for (const { text } of rows) {
          assert.doesNotMatch(text, /4111111111111111/);
          assert.doesNotMatch(text, /"739"|cvv/i);
        }
        // A second call answers the paid payment; the session is paid.
        const again = await processing(t, token);
        assert.equal(again.body.result, 'success');
        assert.equal(again.body.public_id, id);
        assert.equal((await collect(t, token)).status, 400, 'no collection on a paid session');
      });

      it('two racing processing calls charge the card once', async () => {
        const order = newOrder('race');
        const token = await openToken(t, order);
        await collect(t, token);
        const before = calls.length;
        const answers = await Promise.all([processing(t, token), processing(t, token), processing(t, token)]);
        assert.equal(calls.length - before, 1, 'one connector call');
        const ok = answers.filter((a) => a.status === 200);
        assert.ok(ok.length >= 1);
        for (const a of ok) assert.ok(['success', 'waiting'].includes(a.body.result), a.text);
        for (const a of answers.filter((x) => x.status !== 200)) assert.equal(a.status, 400, a.text);
        const all = await status(t, { order_id: order.number, size: 10 });
        assert.deepEqual(all.body.map((p: { status: string }) => p.status), ['settled']);
      });

      it('carries customer.ip as the payer IP to the connector and the callback', async () => {
        const order = newOrder('ip');
        const token = await openToken(t, order, { customer: { name: 'Jane Roe', email: 'success@gmail.com', ip: '203.0.113.7' } });
        await collect(t, token);
        const before = calls.length;
        assert.equal((await processing(t, token)).body.result, 'success');
        assert.equal(calls[before]?.payerIp, '203.0.113.7');
        assert.equal((await callbackOf(order.number, 'settled')).customer_ip, '203.0.113.7');
      });

      it('a decline answers decline_message; the next attempt needs the card collected again and is a new payment', async () => {
        const order = newOrder('decl');
        const token = await openToken(t, order);
        await collect(t, token, { expiry: '02/38' });
        const declined = await processing(t, token);
        assert.equal(declined.body.result, 'decline', declined.text);
        assert.equal(declined.body.decline_message, 'Declined by processing');
        await callbackOf(order.number, 'decline');
        const noCard = await processing(t, token);
        assert.equal(noCard.status, 400);
        assert.deepEqual(noCard.body.errors, [{ error_code: '100000', error_message: 'card_number: This value should not be blank.' }]);
        await collect(t, token, { expiry: '01/38' });
        const ok = await processing(t, token);
        assert.equal(ok.body.result, 'success');
        assert.notEqual(ok.body.public_id, declined.body.public_id);
        const both = await status(t, { order_id: order.number, size: 2 });
        assert.deepEqual(both.body.map((p: { status: string }) => p.status), ['settled', 'decline']);
      });

      it('3-D Secure: redirect to the ACS, the same answer when asked again, back to return_url with signed parameters', async () => {
        const order = newOrder('3ds');
        const token = await openToken(t, order, { return_url: 'https://shop.example/return?cart=7' });
        await collect(t, token, { expiry: '05/38' });
        const res = await processing(t, token);
        assert.equal(res.body.result, 'redirect', res.text);
        const id = res.body.public_id as string;
        assert.equal(res.body.redirect_url, `${t.baseUrl}/sandbox/acs/${id}`);
        assert.equal(res.body.redirect_method, 'POST');
        assert.equal(res.body.redirect_params.MD, id);
        assert.ok(res.body.redirect_params.PaReq);
        const again = await processing(t, token);
        assert.deepEqual(again.body, res.body);
        assert.equal((await update(t, token, { order: { description: 'Too late' } })).body.error_message, 'Session can not be updated');

        const acs = await fetch(`${t.baseUrl}/sandbox/acs/${id}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit&otp=123456' });
        const html = (await acs.text()).replace(/&amp;/g, '&');
        const match = /https:\/\/shop\.example\/return\?[^"'<\s]+/.exec(html);
        assert.ok(match, 'the ACS sends the payer to return_url');
        const back = new URL(match[0]);
        assert.equal(back.searchParams.get('cart'), '7');
        assert.equal(back.searchParams.get('payment_id'), id);
        assert.equal(back.searchParams.get('hash'), checkoutHash(t.merchant.password, id, order.number, order.amount, order.currency, order.description));
        await callbackOf(order.number, 'settled');
        const final = await processing(t, token);
        assert.equal(final.body.result, 'success');
        // One acquirer attempt (payment_attempts), answered by the challenge's completion.
        const attempts = await t.store.db.query<{ why: string; status: string; finished: boolean }>('SELECT why, status, finished_at IS NOT NULL AS finished FROM payment_attempts WHERE payment_id = $1', [id]);
        assert.deepEqual(attempts.map((a) => [a.why, a.status, a.finished]), [['routed', 'approved', true]]);
      });

      it('debit: processing/debit/card on a debit session; card_token in the callback; the endpoint must match the operation', async () => {
        const order = newOrder('debit');
        const token = await openToken(t, order, { operation: 'debit' });
        await collect(t, token);
        const wrong = await processing(t, token, 'purchase');
        assert.equal(wrong.status, 400);
        assert.equal(wrong.body.error_message, 'operation: The session operation does not match this endpoint.');
        const res = await processing(t, token, 'debit');
        assert.equal(res.body.result, 'success', res.text);
        const cb = await callbackOf(order.number, 'settled');
        assert.equal(cb.type, 'debit');
        assert.match(cb.card_token ?? '', /^[0-9a-f]{64}$/);

        const purchase = await openToken(t, newOrder());
        await collect(t, purchase);
        assert.equal((await processing(t, purchase, 'debit')).status, 400);
      });

      it('pays with the session card_token when no card was collected', async () => {
        const first = newOrder('tok1');
        const t1 = await openToken(t, first, { operation: 'debit' });
        await collect(t, t1);
        await processing(t, t1, 'debit');
        const cardToken = (await callbackOf(first.number, 'settled')).card_token;
        const order = newOrder('tok2');
        const token = await openToken(t, order, { card_token: [cardToken] });
        const res = await processing(t, token);
        assert.equal(res.body.result, 'success', res.text);
      });

      it('a session card_token that names no stored card is no attempt: refused at card_number, the session still updatable', async () => {
        const order = newOrder('tok3');
        const token = await openToken(t, order, { card_token: ['c'.repeat(64)] });
        const res = await processing(t, token);
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body.errors, [{ error_code: '100000', error_message: 'card_number: This value should not be blank.' }]);
        const changed = await update(t, token, { order: { description: 'Still open' } });
        assert.equal(changed.status, 200, changed.text);
      });

      it('brand in the return parameters when the merchant chose it, frictionless and after 3-D Secure; not otherwise (issue 25, item 27)', async () => {
        const withBrand = await t.addMerchant({ settings: { returnParams: ['payment_method', 'brand'] } });
        const order = newOrder('brand');
        const token = await openToken(t, order, {}, withBrand);
        await collect(t, token);
        const res = await processing(t, token);
        assert.equal(res.body.result, 'success', res.text);
        const q = res.body.return_url_query_params;
        assert.equal(q.brand, 'payment_document_card', JSON.stringify(q));
        assert.equal(q.payment_method, 'card');
        assert.equal(q.hash, checkoutHash(withBrand.password, res.body.public_id, order.number, order.amount, order.currency, order.description));

        const challenged = newOrder('brand3ds');
        const t3 = await openToken(t, challenged, {}, withBrand);
        await collect(t, t3, { expiry: '05/38' });
        const redirect = await processing(t, t3);
        assert.equal(redirect.body.result, 'redirect', redirect.text);
        const acs = await fetch(`${t.baseUrl}/sandbox/acs/${redirect.body.public_id}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit&otp=123456' });
        const match = /https:\/\/shop\.example\/return\?[^"'<\s]+/.exec((await acs.text()).replace(/&amp;/g, '&'));
        assert.ok(match, 'the ACS sends the payer to return_url');
        assert.equal(new URL(match[0]).searchParams.get('brand'), 'payment_document_card', match[0]);
        const after3ds = await processing(t, t3);
        assert.equal(after3ds.body.return_url_query_params.brand, 'payment_document_card', after3ds.text);

        const plain = newOrder('nobrand');
        const t2 = await openToken(t, plain);
        await collect(t, t2);
        const without = await processing(t, t2);
        assert.equal(without.body.result, 'success', without.text);
        assert.equal(without.body.return_url_query_params.brand, undefined, JSON.stringify(without.body.return_url_query_params));
      });

      it('a debit paid by card_token: the callback carries card and card_expiration_date of the stored card (issue 25, item 27)', async () => {
        const first = newOrder('dtok1');
        const t1 = await openToken(t, first, { operation: 'debit' });
        await collect(t, t1, { expiry: '01/37' });
        assert.equal((await processing(t, t1, 'debit')).body.result, 'success');
        const cardToken = (await callbackOf(first.number, 'settled')).card_token;
        assert.match(cardToken ?? '', /^[0-9a-f]{64}$/);
        const order = newOrder('dtok2');
        const token = await openToken(t, order, { operation: 'debit', card_token: [cardToken] });
        const res = await processing(t, token, 'debit');
        assert.equal(res.body.result, 'success', res.text);
        const cb = await callbackOf(order.number, 'settled');
        assert.equal(cb.type, 'debit');
        assert.equal(cb.card, '411111****1111');
        assert.equal(cb.card_expiration_date, '01/2037');
      });

      it('answers 401 without a valid Token: missing, unknown, a hosted-page session, expired', async () => {
        const expected = { http_code: 401, error_code: '100000', error_message: 'Token: Session token is invalid or expired.' };
        assert.deepEqual((await processing(t, undefined)).body, expected);
        assert.deepEqual((await processing(t, 'x'.repeat(32))).body, expected);
        assert.deepEqual((await processing(t, '../../etc/passwd')).body, expected);
        const order = newOrder('page');
        const page = await t.postJson('/api/v1/session', {
          ...tokenBody(t.merchant, order), return_url: undefined, success_url: 'https://shop.example/s', cancel_url: 'https://shop.example/c',
        });
        assert.equal(page.status, 200, page.text);
        const pageId = new URL(page.body.redirect_url).pathname.split('/').pop();
        assert.equal((await processing(t, pageId)).status, 401, 'a hosted-page session id is no Token');
        assert.equal((await update(t, pageId, { order_amount: '1.00' })).status, 403);
        assert.equal((await collect(t, pageId)).status, 403);

        const token = await openToken(t, newOrder(), { session_expiry: 1 });
        await collect(t, token);
        clock.advance(61_000);
        assert.deepEqual((await processing(t, token)).body, expected);
      });

      it('validates the processing body', async () => {
        const token = await openToken(t, newOrder());
        await collect(t, token);
        const cases: [unknown, string][] = [
          [processingBody({ name: undefined }), 'name: This value should not be blank.'],
          [processingBody({ name: 'x'.repeat(33) }), 'name: This value is too long. It should have 32 characters or less.'],
          [processingBody({ email: 'nope' }), 'email: This value is not a valid email address.'],
          [processingBody({ with_hosted_fields: false }), 'with_hosted_fields: This value should be true.'],
          [processingBody({ birth_day: '2001-02-30' }), 'birth_day: This value is not a valid date.'],
          [processingBody({ browser_info: 'text' }), 'browser_info: This value should be of type array.'],
          [processingBody({ billing_address: { country: 'gb' } }), 'billing_address.country: This value is not valid.'],
        ];
        for (const [body, message] of cases) {
          const clean = JSON.parse(JSON.stringify(body));
          const res = await processing(t, token, 'purchase', clean);
          assert.equal(res.status, 400, res.text);
          assert.ok(res.body.errors.some((e: { error_message: string }) => e.error_message === message), `${message} in ${res.text}`);
        }
        // The card is still waiting: nothing above started an attempt.
        assert.equal((await processing(t, token)).body.result, 'success');
      });
    });

    describe('the field frame\'s collection', () => {
      it('checks the card, the expiry and the CVV, naming the field', async () => {
        const token = await openToken(t, newOrder());
        const cases: [{ number?: string; expiry?: string; cvv?: string }, string][] = [
          [{ number: '4111111111111112' }, 'card_number: Invalid card number.'],
          [{ number: '1111222233334444' }, 'card_number: Invalid card number.'],
          [{ expiry: '12/29' }, 'card_expiry: This value is not valid.'],
          [{ expiry: '13/38' }, 'card_expiry: This value is not valid.'],
          [{ cvv: '12' }, 'card_cvv: This value is not valid.'],
          [{ number: '378282246310005', cvv: '123' }, 'card_cvv: This value is not valid.'],
        ];
        for (const [card, message] of cases) {
          const res = await collect(t, token, card);
          assert.equal(res.status, 400, res.text);
          assert.deepEqual(res.body.errors.map((e: { error_message: string }) => e.error_message), [message]);
        }
        assert.equal((await collect(t, token, { number: '4111 1111 1111 1111' })).status, 200);
      });

      it('refuses another origin and a missing Token with 403', async () => {
        const token = await openToken(t, newOrder());
        const foreign = await collect(t, token, {}, { origin: 'https://evil.example' });
        assert.equal(foreign.status, 403);
        const none = await collect(t, undefined);
        assert.deepEqual(none.body, { http_code: 403, error_code: '100000', error_message: 'Token: Session token is invalid or expired.' });
      });

      it('holds the CVV in this process only: a processing call on another node charges without it', async () => {
        // A second node on the same database: its own HTTP app, its own memory.
        const other = await buildApp(t.gateway.ctx);
        try {
          const order = newOrder('node');
          const token = await openToken(t, order);
          await collect(t, token, { cvv: '456' });
          const before = calls.length;
          const res = await other.inject({ method: 'POST', url: '/api/v1/processing/purchase/card', headers: { token, 'content-type': 'application/json' }, payload: processingBody() });
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(JSON.parse(res.body).result, 'success');
          assert.equal(calls[before]?.card.cvv, undefined, 'no CVV on the other node');
        } finally {
          await other.close();
        }
      });

      it('forgets the CVV after its time to live', async () => {
        const token = await openToken(t, newOrder(), { session_expiry: 60 });
        await collect(t, token, { cvv: '321' });
        clock.advance(11 * 60_000);
        const before = calls.length;
        assert.equal((await processing(t, token)).body.result, 'success');
        assert.equal(calls[before]?.card.cvv, undefined);
      });

      it('deletes a card collected but never processed once its session expired and the grace period passed', async () => {
        const vaultIdOf = async (token: string) =>
          (await t.store.db.query<{ id: string }>(`SELECT request->>'cardVaultId' AS id FROM sessions WHERE id = $1`, [token]))[0]?.id ?? '';
        const inVault = async (id: string) => (await t.store.db.query('SELECT 1 FROM card_vault WHERE id = $1', [id])).length === 1;
        const abandonedToken = await openToken(t, newOrder('abandoned'), { session_expiry: 15 });
        await collect(t, abandonedToken);
        const lateToken = await openToken(t, newOrder('late'), { session_expiry: 120 });
        await collect(t, lateToken);
        const [abandoned, late] = [await vaultIdOf(abandonedToken), await vaultIdOf(lateToken)];

        clock.advance(40 * 60_000); // past the grace period: only the live sessions still hold the cards
        await t.gateway.sweeper.runOnce();
        assert.equal(await inVault(late), true, 'a live session keeps its card past the grace period');
        assert.equal(await inVault(abandoned), true, 'expired 25 minutes ago: still within the grace period');
        assert.equal((await processing(t, lateToken)).body.result, 'success');

        clock.advance(10 * 60_000);
        await t.gateway.sweeper.runOnce();
        assert.equal(await inVault(abandoned), false);
        assert.equal(await inVault(late), true, 'the payment keeps the card it charged');
      });
    });

    describe('PUT /api/v1/session/update', () => {
      it('changes the amount and currency before any attempt; the payment, the hash and the callback follow', async () => {
        const order = newOrder('upd');
        const token = await openToken(t, order);
        // A processing call with nothing collected yet is no attempt: the session stays updatable.
        assert.equal((await processing(t, token)).status, 400);
        const res = await update(t, token, signedChange(t.merchant, order, { order_amount: '25.50', order_currency: 'EUR', custom_data: { basket: 'b-9' }, customer: { email: 'new@example.com' } }));
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body, { result: 'success' });
        const nested = await update(t, token, { order: { description: 'Changed order' } });
        assert.equal(nested.status, 200, nested.text);
        const st = await status(t, { order_id: order.number });
        assert.deepEqual(st.body.order, { number: order.number, amount: '25.50', currency: 'EUR', description: 'Changed order' });
        await collect(t, token);
        const before = calls.length;
        const paid = await processing(t, token);
        assert.equal(paid.body.result, 'success');
        assert.equal(calls[before]?.amount, 2550n);
        assert.equal(calls[before]?.currency, 'EUR');
        assert.equal(paid.body.return_url_query_params.hash, checkoutHash(t.merchant.password, paid.body.public_id, order.number, '25.50', 'EUR', 'Changed order'));
        const cb = await callbackOf(order.number, 'settled');
        assert.equal(cb.order_amount, '25.50');
        assert.equal(cb.order_currency, 'EUR');
        assert.equal(cb['custom_data[basket]'], 'b-9');
        assert.equal(cb.customer_email, 'success@gmail.com', 'the processing call\'s email wins over the session\'s');
        assert.equal((await update(t, token, signedChange(t.merchant, { ...order, amount: '25.50', currency: 'EUR', description: 'Changed order' }, { order_amount: '1.00' }))).body.error_message, 'Session can not be updated');
      });

      it('changes amount or currency only with the merchant\'s hash, never with the Token alone (issue 25, item 6)', async () => {
        const order = newOrder('payer');
        const token = await openToken(t, order);
        for (const change of [{ order_amount: '0.01' }, { order_currency: 'IDR' }, { order: { amount: '0.01', currency: 'IDR' } }]) {
          const res = await update(t, token, change);
          assert.equal(res.status, 400, res.text);
          assert.ok(res.body.errors.every((e: { error_message: string }) => /changes only with the merchant's merchant_key and hash/.test(e.error_message)), res.text);
        }
        const forged = await update(t, token, { order_amount: '0.01', merchant_key: t.merchant.key, hash: 'f'.repeat(40) });
        assert.equal(forged.status, 401, forged.text);
        const other = await t.addMerchant();
        const foreign = await update(t, token, signedChange(other, order, { order_amount: '0.01' }));
        assert.equal(foreign.status, 403, 'another merchant\'s signature does not change this session');
        assert.deepEqual((await status(t, { order_id: order.number })).body.order, { number: order.number, amount: order.amount, currency: order.currency, description: order.description }, 'nothing changed');
        assert.equal((await update(t, token, { order: { description: 'Only the description' } })).status, 200, 'the rest stays the Token\'s');
      });

      it('rejects merchant_key and hash on other changes, bad values and an empty change with 400', async () => {
        const order = newOrder();
        const token = await openToken(t, order);
        const withKey = await update(t, token, { order_description: 'A new description', merchant_key: t.merchant.key, hash: 'x' });
        assert.equal(withKey.status, 400);
        assert.deepEqual(withKey.body.errors.map((e: { error_message: string }) => e.error_message), ['merchant_key: This field was not expected.', 'hash: This field was not expected.']);
        for (const [body, message] of [
          [signedChange(t.merchant, order, { order_amount: '0.00' }), 'order.amount: This value should be greater than 0.'],
          [signedChange(t.merchant, order, { order_amount: '1.001' }), 'order.amount: This value is not valid.'],
          [signedChange(t.merchant, order, { order_amount: '99999999999999999999999' }), 'order.amount: This value is not valid.'],
          [signedChange(t.merchant, order, { order_currency: 'XYZ' }), 'order.currency: This value is not valid.'],
          [{ order_currency: 'usd' }, 'order_currency: This value is not valid.'],
          [{ customer: { email: 'nope' } }, 'customer.email: This value is not a valid email address.'],
          [{}, 'request: This value should not be blank.'],
        ] as const) {
          const res = await update(t, token, body);
          assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
          assert.equal(res.body.errors[0].error_message, message);
        }
        assert.equal((await update(t, token, signedChange(t.merchant, order, { order_amount: 7 }))).status, 200, 'a JSON number amount');
      });

      it('answers 403 for a missing, unknown or expired token, and refuses after a declined attempt', async () => {
        const expected = { http_code: 403, error_code: '100000', error_message: 'Token: Session token is invalid or expired.' };
        assert.deepEqual((await update(t, undefined, { order_amount: '1.00' })).body, expected);
        assert.deepEqual((await update(t, 'A'.repeat(32), { order_amount: '1.00' })).body, expected);
        const token = await openToken(t, newOrder(), { session_expiry: 1 });
        clock.advance(61_000);
        assert.equal((await update(t, token, { order_amount: '1.00' })).status, 403);

        const declinedOrder = newOrder();
        const declined = await openToken(t, declinedOrder);
        await collect(t, declined, { expiry: '02/38' });
        assert.equal((await processing(t, declined)).body.result, 'decline');
        const res = await update(t, declined, signedChange(t.merchant, declinedOrder, { order_amount: '1.00' }));
        assert.deepEqual(res.body, { http_code: 400, error_code: '100000', error_message: 'Session can not be updated' });
      });
    });

    it('answers malformed input with D3 bodies, never a 5xx', async () => {
      const token = await openToken(t, newOrder());
      const send = async (method: string, path: string, body: string | Uint8Array, contentType: string, headers: Record<string, string> = {}) => {
        const res = await fetch(`${t.baseUrl}${path}`, { method, headers: { 'content-type': contentType, ...headers }, body: body as BodyInit });
        const text = await res.text();
        return { status: res.status, text, body: JSON.parse(text) };
      };
      const bodies: [string | Uint8Array, string][] = [
        ['{"name":', 'application/json'],
        ['', 'application/json'],
        ['[]', 'application/json'],
        ['null', 'application/json'],
        ['"text"', 'application/json'],
        ['name=x', 'application/x-www-form-urlencoded'],
        ['<xml/>', 'application/xml'],
        [new Uint8Array([0xff, 0xfe, 0x7b, 0x22]), 'application/json'],
        [JSON.stringify({ name: { a: 1 }, browser_info: { accept_headers: 'x'.repeat(5000) } }), 'application/json'],
        [JSON.stringify({ order: 'x', card_number: 4111, card_expiry: null, card_cvv: [] }), 'application/json'],
        [JSON.stringify({ custom_data: 'x'.repeat(400_000) }), 'application/json'],
      ];
      const targets: [string, string][] = [
        ['POST', '/api/v1/session/token'], ['PUT', '/api/v1/session/update'], ['POST', '/api/v1/processing/purchase/card'],
        ['POST', '/api/v1/processing/debit/card'], ['POST', '/hosted-fields/collect'], ['POST', '/api/v1/payment/card/credit'],
      ];
      for (const [method, path] of targets) {
        for (const [body, contentType] of bodies) {
          for (const headers of [{ token }, { token: '\u00ff'.repeat(3) }, {}]) {
            const res = await send(method, path, body, contentType, headers as Record<string, string>);
            assert.ok(res.status >= 400 && res.status < 500, `${method} ${path} ${String(body).slice(0, 30)}: ${res.status} ${res.text}`);
            assert.equal(res.body.http_code, res.status);
            assert.equal(typeof res.body.error_message, 'string');
          }
        }
      }
      for (const path of ['/hosted-fields/frame/pan', '/hosted-fields/frame/%00', '/hosted-fields/frame/card/x']) {
        const res = await fetch(`${t.baseUrl}${path}`);
        assert.equal(res.status, 404, path);
      }
    });

    it('serves the SDK, the field frame under a strict CSP, and their assets', async () => {
      const sdk = await fetch(`${t.baseUrl}/sdk/hosted-fields.js`);
      assert.equal(sdk.status, 200);
      assert.match(sdk.headers.get('content-type') ?? '', /javascript/);
      assert.match(await sdk.text(), /HostedFields\.prototype\.collectIframesData/);
      const etag = sdk.headers.get('etag') ?? '';
      assert.equal((await fetch(`${t.baseUrl}/sdk/hosted-fields.js`, { headers: { 'if-none-match': etag } })).status, 304);
      for (const field of ['card', 'expiry', 'cvv']) {
        const frame = await fetch(`${t.baseUrl}/hosted-fields/frame/${field}`);
        assert.equal(frame.status, 200);
        const csp = frame.headers.get('content-security-policy') ?? '';
        assert.match(csp, /script-src 'self'/);
        assert.match(csp, /connect-src 'self'/);
        assert.match(csp, /frame-ancestors \*/);
        const html = await frame.text();
        assert.doesNotMatch(html, /<script>|<style|\sstyle=|\son[a-z]+=/i, 'no inline script, style or handler');
        assert.match(html, new RegExp(`data-field="${field}"`));
      }
      assert.equal((await fetch(`${t.baseUrl}/hosted-fields/field.js`)).status, 200);
      assert.equal((await fetch(`${t.baseUrl}/hosted-fields/field.css`)).status, 200);
    });
  });
}
