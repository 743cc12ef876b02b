/**
 * Payments for operators (issue 11, part C) over HTTP on both stores: search with every filter kind and cursor
 * paging, the payment's whole story (card masked), operator capture/void/refund through the merchant channels'
 * engine (callbacks, audit, races), resolving an operation left in flight, and "resend now" of a callback, each
 * per role. Malformed input gets D3 400s, never a 5xx.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { insertOperatorUser } from '../../src/store/operators-repo.ts';
import { issueOperatorToken } from '../../src/services/operators.ts';
import { flagForOperator, getPayment, listTransactions } from '../../src/store/payments-repo.ts';
import { listCallbacks } from '../../src/store/callbacks-repo.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Role } from '../../src/domain/admin-roles.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { representative, sale as apmSale } from '../apm/support.ts';

const ADMIN = 'admin-payments-bootstrap-token';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: payments (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    const tokens = {} as Record<Role, string>;

    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { adminToken: ADMIN, notificationUrl: listener.url, workers: true });
      tokens.admin = ADMIN;
      for (const role of ['operator', 'support', 'viewer'] as const) {
        const userId = newId();
        await insertOperatorUser(t.store.db, { id: userId, email: `${role}-${userId}@example.com`, name: `A ${role}`, role });
        tokens[role] = (await issueOperatorToken(t.store.db, userId, 'test')).token;
      }
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    async function call(method: string, path: string, opts: { role?: Role; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${tokens[opts.role ?? 'admin']}`, ...opts.headers };
      const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${t.baseUrl}${path}`, { method, headers, body });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
    }
    const get = (path: string, role?: Role) => call('GET', path, { role });
    const post = (path: string, body?: unknown, role?: Role, headers?: Record<string, string>) => call('POST', path, { body, role, headers });

    /** A D3 400 naming exactly these fields. */
    function assertInvalid(res: { status: number; body: any; text: string }, fields: string[]) {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error_message, 'Request data is invalid.');
      assert.deepEqual(res.body.errors.map((e: { error_message: string }) => e.error_message.split(':')[0]).sort(), [...fields].sort(), res.text);
    }

    const settledSale = async (overrides: Record<string, unknown> = {}, m?: TestMerchant) => {
      const res = await sale(t, { order_amount: '5.00', ...overrides }, m);
      assert.equal(res.body.status, 'SETTLED', res.text);
      return res.body.trans_id as string;
    };

    describe('search', () => {
      let m: TestMerchant;
      const ids: Record<string, string> = {};
      before(async () => {
        m = await t.addMerchant();
        ids.first = await settledSale({ order_id: 'SEARCH-1', payer_email: 'Alice@Example.com', order_amount: '10.00', order_currency: 'EUR' }, m);
        ids.second = await settledSale({ order_id: 'SEARCH-2', payer_email: 'bob@example.com', order_amount: '20.00', order_currency: 'EUR', recurring_init: 'Y' }, m);
        const declined = await sale(t, { order_id: 'SEARCH-3', payer_email: 'carol@example.com', card_number: '5555555555554444', order_amount: '30.00', order_currency: 'EUR' }, m);
        ids.third = declined.body.trans_id as string;
        assert.equal(declined.body.status, 'DECLINED', declined.text);
      });
      const search = async (query: string, role?: Role) => {
        const res = await get(`/admin/v1/payments?merchant_id=${m.id}${query ? `&${query}` : ''}`, role);
        assert.equal(res.status, 200, res.text);
        return res.body as { payments: Record<string, unknown>[]; next_cursor: string | null };
      };
      const found = async (query: string) => (await search(query)).payments.map((p) => p.id);

      it('lists the merchant\'s payments newest first, card masked, for every role', async () => {
        for (const role of ['admin', 'operator', 'support', 'viewer'] as const) {
          const page = await search('', role);
          assert.deepEqual(page.payments.map((p) => p.id), [ids.third, ids.second, ids.first]);
          assert.equal(page.next_cursor, null);
        }
        const [third] = (await search('')).payments;
        assert.equal(third!.card, '555555****4444');
        assert.equal(third!.status, 'decline');
        assert.equal(third!.s2s_status, 'DECLINED');
        assert.equal(third!.payer_email, 'carol@example.com');
      });

      it('filters by e-mail (any case), card digits, order, ids, status, amounts, currency, method, channel, card-on-file and dates', async () => {
        assert.deepEqual(await found('email=ALICE%40example.COM'), [ids.first]);
        assert.deepEqual(await found('card_last4=4444'), [ids.third]);
        assert.deepEqual(await found('card_first6=411111'), [ids.second, ids.first]);
        assert.deepEqual(await found('card_first6=411111&card_last4=4444'), []);
        assert.deepEqual(await found('order_id=SEARCH-2'), [ids.second]);
        assert.deepEqual(await found(`payment_id=${ids.first}`), [ids.first]);
        const [tx] = await listTransactions(t.store.db, ids.second!);
        assert.deepEqual(await found(`trans_id=${tx!.id}`), [ids.second]);
        assert.deepEqual(await found(`trans_id=${ids.third}`), [ids.third], 'the S2S trans_id is the payment id');
        assert.deepEqual(await found(`trans_id=${newId()}`), []);
        assert.deepEqual(await found('status=decline'), [ids.third]);
        assert.deepEqual(await found('status=DECLINED'), [ids.third], 'the S2S name of the status');
        assert.deepEqual(await found('currency=EUR&amount_from=15&amount_to=30.00'), [ids.third, ids.second]);
        assert.deepEqual(await found('currency=USD'), []);
        assert.deepEqual(await found('currency=eur&amount_from=25'), [ids.third], 'currency in any case');
        assert.deepEqual(await found('method=card&channel=s2s_card'), [ids.third, ids.second, ids.first]);
        assert.deepEqual(await found('initiator=cardholder&source=ecommerce&sequence=first'), [ids.second]);
        const created = (await getPayment(t.store.db, ids.second!))!.createdAt;
        assert.deepEqual(await found(`created_from=${created.toISOString()}`), [ids.third, ids.second]);
        assert.deepEqual(await found(`created_to=${encodeURIComponent(created.toISOString())}`), [ids.first]);
        assert.deepEqual(await found('created_from=2000-01-01&created_to=2000-01-02'), []);
        // Without the merchant filter, the other merchants' payments are searched too.
        const all = await get(`/admin/v1/payments?order_id=SEARCH-1`);
        assert.deepEqual(all.body.payments.map((p: { id: string }) => p.id), [ids.first]);
      });

      it('pages with an opaque cursor, newest first, without gaps or repeats', async () => {
        const seen: unknown[] = [];
        let cursor: string | null = null;
        do {
          const page = await search(`limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          assert.ok(page.payments.length <= 1);
          seen.push(...page.payments.map((p) => p.id));
          cursor = page.next_cursor;
        } while (cursor);
        assert.deepEqual(seen, [ids.third, ids.second, ids.first]);
      });

      it('refuses filters it cannot read with D3 400s naming them, never a 5xx', async () => {
        const bad = async (query: string, fields: string[]) => assertInvalid(await get(`/admin/v1/payments?${query}`), fields);
        await bad('card_last4=44', ['card_last4']);
        await bad('card_first6=abcdef', ['card_first6']);
        await bad('status=paid', ['status']);
        await bad('emial=a%40b.c', ['emial']);
        await bad('amount_from=10', ['currency']);
        await bad('currency=EUR&amount_from=ten', ['amount_from']);
        await bad('currency=EUR&amount_from=1.001', ['amount_from']);
        await bad('currency=EUR&amount_from=5&amount_to=1', ['amount_to']);
        await bad('currency=XXQ', ['currency']);
        await bad('created_from=yesterday', ['created_from']);
        await bad('created_from=2026-02-30', ['created_from']);
        await bad('payment_id=123', ['payment_id']);
        await bad('trans_id=abc', ['trans_id']);
        await bad('limit=0', ['limit']);
        await bad('limit=201', ['limit']);
        await bad('cursor=bm9wZQ', ['cursor']);
        await bad('initiator=robot', ['initiator']);
        await bad('status=settled&status=decline', ['status']);
      });

      it('answers 401 without a valid token', async () => {
        const res = await fetch(`${t.baseUrl}/admin/v1/payments`);
        assert.equal(res.status, 401);
      });
    });

    describe('one payment', () => {
      it('shows transactions, callbacks with attempts, the routing decision and 3-D Secure data; never the PAN', async () => {
        const id = await settledSale();
        const res = await get(`/admin/v1/payments/${id}`, 'viewer');
        assert.equal(res.status, 200, res.text);
        assert.ok(!res.text.includes('4111111111111111'), 'no PAN anywhere in the answer');
        const { payment, transactions, callbacks, routing, audit } = res.body;
        assert.equal(payment.id, id);
        assert.equal(payment.card, '411111****1111');
        assert.deepEqual(payment.card_details, { mask: '411111****1111', first6: '411111', last4: '1111', brand: 'visa', expiry: '01/2038' });
        assert.equal(payment.payer.email, 'doe@example.com');
        assert.ok(payment.connector.reference, 'the connector reference');
        assert.deepEqual(transactions.map((x: { type: string; status: string; amount: string }) => [x.type, x.status, x.amount]), [['sale', 'success', '5.00']]);
        assert.equal(transactions[0].initiated_by, null, 'the merchant started it');
        assert.equal(callbacks.length, 1);
        assert.equal(callbacks[0].payment_id, id);
        assert.ok(Array.isArray(callbacks[0].attempt_log));
        const [mid] = await t.store.db.query<{ id: string }>('SELECT id FROM mids WHERE merchant_id = $1', [t.merchant.id]);
        assert.deepEqual({ ...routing, considered: undefined }, {
          mid_id: mid!.id, mid_name: 'MID SMS/DMS', connector: 'sandbox-card', payment_mode: 'SMS/DMS', recorded: true, basis: 'recorded', intent: 'sale', rule: 'highest_priority', considered: undefined,
          matched_rule: null, share: null, candidates: [mid!.id], skipped_rules: [], scores: [], explored: null,
          // One acquirer attempt (payment_attempts), its transaction the sale's.
          attempts: [{ mid_id: mid!.id, trans_id: transactions[0].id, why: 'routed', outcome: 'approved', code: null, retry: null, stop: null }],
        });
        assert.deepEqual(routing.considered, [{ mid_id: mid!.id, priority: 0, eligible: true, candidate: true, reason: null }]);
        assert.deepEqual(audit, []);
      });

      it('carries the 3-D Secure attributes of a challenged payment', async () => {
        const res = await sale(t, { card_exp_month: '05' });
        const detail = await get(`/admin/v1/payments/${res.body.trans_id}`);
        assert.equal(detail.status, 200, detail.text);
        assert.equal(detail.body.payment.status, '3ds');
        assert.equal(typeof detail.body.payment.three_ds, 'object');
        assert.ok(detail.body.payment.three_ds && Object.keys(detail.body.payment.three_ds).length > 0, detail.text);
      });

      it('answers 404 for an unknown or malformed id', async () => {
        for (const id of [UNKNOWN, 'not-a-uuid']) assert.equal((await get(`/admin/v1/payments/${id}`)).status, 404);
      });
    });

    describe('capture, void and refund by an operator', () => {
      it('refunds in part: the payment moves, the merchant gets the callback, the transaction and the audit log name the operator (e2e)', async () => {
        const id = await settledSale();
        const res = await post(`/admin/v1/payments/${id}/refund`, { amount: '2.00' }, 'operator');
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.result, 'approved');
        assert.equal(res.body.payment.status, 'settled');
        assert.equal(res.body.payment.refunded_amount, '2.00');
        const [callback] = await listener.waitForMatching((c) => c.fields.trans_id === id && c.fields.action === 'CREDITVOID', 1);
        assert.equal(callback!.fields.result, 'SUCCESS');
        assert.equal(callback!.fields.amount, '2.00');
        // The same callback as the merchant's own partial refund.
        const other = await settledSale();
        await followUp(t, 'CREDITVOID', other, { amount: '2.00' });
        const [own] = await listener.waitForMatching((c) => c.fields.trans_id === other && c.fields.action === 'CREDITVOID', 1);
        assert.deepEqual(Object.keys(callback!.fields), Object.keys(own!.fields));
        assert.deepEqual([callback!.fields.status, callback!.fields.result], [own!.fields.status, own!.fields.result]);

        const detail = (await get(`/admin/v1/payments/${id}`)).body;
        const refund = detail.transactions.find((x: { type: string }) => x.type === 'refund');
        assert.equal(refund.status, 'success');
        assert.equal(refund.initiated_by.kind, 'operator');
        assert.match(refund.initiated_by.name, /^operator-/);
        assert.deepEqual(detail.audit.map((a: { action: string; details: { stage: string } }) => [a.action, a.details.stage]), [['payment.refund', 'requested'], ['payment.refund', 'approved']]);
        assert.match(detail.audit[0].user_name, /^operator-/);
        assert.deepEqual([detail.audit[0].before.refunded_amount, detail.audit[1].after.refunded_amount], ['0.00', '2.00']);

        const rest = await post(`/admin/v1/payments/${id}/refund`, {}, 'admin');
        assert.equal(rest.body.payment.status, 'refund', rest.text);
        assert.equal(rest.body.payment.refunded_amount, '5.00');
      });

      it('captures a held authorization in part, and voids a settled payment', async () => {
        const held = (await sale(t, { auth: 'Y', order_amount: '5.00' })).body.trans_id as string;
        const captured = await post(`/admin/v1/payments/${held}/capture`, { amount: '3.00' }, 'operator');
        assert.equal(captured.status, 200, captured.text);
        assert.deepEqual([captured.body.result, captured.body.payment.status, captured.body.payment.captured_amount], ['approved', 'settled', '3.00']);
        const voided = await call('POST', `/admin/v1/payments/${await settledSale()}/void`, { role: 'operator' });
        assert.equal(voided.status, 200, voided.text);
        assert.equal(voided.body.payment.status, 'void');
      });

      it('allowed_actions lists exactly the actions the API then accepts, with their largest amount, in every state', async () => {
        const refunded = (part: string) => async () => {
          const id = await settledSale();
          assert.equal((await post(`/admin/v1/payments/${id}/refund`, part ? { amount: part } : {})).status, 200);
          return id;
        };
        const STATES: Record<string, { make: () => Promise<string>; expected: { action: string; max_amount: string; partial: boolean }[] }> = {
          settled: { make: () => settledSale(), expected: [{ action: 'refund', max_amount: '5.00', partial: true }, { action: 'void', max_amount: '5.00', partial: false }] },
          'partly refunded': { make: refunded('1.50'), expected: [{ action: 'refund', max_amount: '3.50', partial: true }] },
          'fully refunded': { make: refunded(''), expected: [] },
          'held authorization': {
            make: async () => (await sale(t, { auth: 'Y', order_amount: '5.00' })).body.trans_id as string,
            expected: [{ action: 'capture', max_amount: '5.00', partial: true }, { action: 'refund', max_amount: '5.00', partial: false }],
          },
          declined: { make: async () => (await sale(t, { order_amount: '5.00', card_number: '5555555555554444' })).body.trans_id as string, expected: [] },
          voided: {
            make: async () => {
              const id = await settledSale();
              assert.equal((await post(`/admin/v1/payments/${id}/void`)).status, 200);
              return id;
            },
            expected: [],
          },
        };
        for (const [state, { make, expected }] of Object.entries(STATES)) {
          const shown = (await get(`/admin/v1/payments/${await make()}`, 'viewer')).body.payment.allowed_actions;
          assert.deepEqual(shown, expected, `${state}: listed whatever the caller's role`);
          for (const action of ['capture', 'refund', 'void']) {
            const id = await make(); // a fresh payment in this state for each action
            const listed = expected.find((a) => a.action === action);
            if (listed?.partial) {
              const over = await post(`/admin/v1/payments/${id}/${action}`, { amount: (Number(listed.max_amount) + 0.01).toFixed(2) });
              assert.ok(over.status >= 400 && over.status < 500, `${state}: ${action} above ${listed.max_amount} refused: ${over.text}`);
            }
            const res = await post(`/admin/v1/payments/${id}/${action}`, listed && action !== 'void' ? { amount: listed.max_amount } : undefined);
            if (listed) assert.deepEqual([res.status, res.body.result], [200, 'approved'], `${state}: ${action} is listed, so accepted: ${res.text}`);
            else assert.ok(res.status >= 400 && res.status < 500, `${state}: ${action} is not listed, so refused: ${res.text}`);
          }
        }
      });

      it('refunds an alternative-method payment through its provider, with the S2S APM callback', async () => {
        const method = representative('extra_fields', 's2s_apm');
        const parameters = Object.fromEntries(method.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345']));
        const sold = await apmSale(t, method.key, { parameters });
        assert.equal(sold.body.status, 'SETTLED', sold.text);
        const id = sold.body.trans_id as string;
        const res = await post(`/admin/v1/payments/${id}/refund`, { amount: '2.50' }, 'operator');
        assert.equal(res.status, 200, res.text);
        assert.deepEqual([res.body.result, res.body.payment.method, res.body.payment.refunded_amount], ['approved', method.key, '2.50']);
        const [callback] = await listener.waitForMatching((c) => c.fields.trans_id === id && c.fields.action === 'CREDITVOID', 1);
        assert.equal(callback!.fields.status, 'SETTLED');
      });

      it('never refunds twice when two operators race: one wins, the other is refused', async () => {
        const id = await settledSale();
        const [a, b] = await Promise.all([
          post(`/admin/v1/payments/${id}/refund`, { amount: '3.00' }, 'operator'),
          post(`/admin/v1/payments/${id}/refund`, { amount: '3.00' }, 'admin'),
        ]);
        const statuses = [a.status, b.status].sort();
        assert.equal(statuses[0], 200, `${a.text} ${b.text}`);
        assert.ok(statuses[1] === 409 || statuses[1] === 400, `${a.text} ${b.text}`);
        const p = (await getPayment(t.store.db, id))!;
        assert.equal(p.refundedAmount, 300n);
        assert.equal((await listTransactions(t.store.db, id)).filter((x) => x.type === 'refund' && x.status === 'success').length, 1);
      });

      it('replays the first answer to a double click sent with one Idempotency-Key', async () => {
        const id = await settledSale();
        const key = `refund-${newId()}`;
        const first = await post(`/admin/v1/payments/${id}/refund`, { amount: '1.00' }, 'operator', { 'idempotency-key': key });
        const second = await post(`/admin/v1/payments/${id}/refund`, { amount: '1.00' }, 'operator', { 'idempotency-key': key });
        assert.equal(first.status, 200, first.text);
        assert.equal(second.headers.get('idempotent-replayed'), 'true');
        assert.equal(second.text, first.text);
        assert.equal((await getPayment(t.store.db, id))!.refundedAmount, 100n);
      });

      it('refuses support and viewer tokens with 403 and moves nothing', async () => {
        const id = await settledSale();
        for (const role of ['support', 'viewer'] as const) {
          for (const action of ['capture', 'void', 'refund', 'resolve']) {
            const res = await post(`/admin/v1/payments/${id}/${action}`, {}, role);
            assert.equal(res.status, 403, `${role} ${action}`);
            assert.equal(res.body.error_message, 'Authorization: Your role does not permit this action.');
          }
        }
        assert.equal((await getPayment(t.store.db, id))!.refundedAmount, 0n);
      });

      it('answers malformed or impossible requests with D3 errors, never a 5xx', async () => {
        const id = await settledSale();
        assertInvalid(await post(`/admin/v1/payments/${id}/refund`, { amount: 'ten' }), ['amount']);
        assertInvalid(await post(`/admin/v1/payments/${id}/refund`, { amount: '1.001' }), ['amount']);
        assertInvalid(await post(`/admin/v1/payments/${id}/refund`, { amount: 2 }), ['amount']);
        assertInvalid(await post(`/admin/v1/payments/${id}/refund`, { amount: '1.00', extra: 1 }), ['extra']);
        const broken = await call('POST', `/admin/v1/payments/${id}/refund`, { raw: '{"amount": ' });
        assert.equal(broken.status, 400, broken.text);
        assert.equal((await post(`/admin/v1/payments/${id}/refund`, { amount: '9.00' })).body.error_code, '208006');
        assert.equal((await post(`/admin/v1/payments/${id}/capture`, {})).body.error_code, '208003');
        assert.equal((await post(`/admin/v1/payments/${UNKNOWN}/refund`, {})).status, 404);
        assert.equal((await post('/admin/v1/payments/nope/void')).status, 404);
        assert.equal((await getPayment(t.store.db, id))!.refundedAmount, 0n);
      });
    });

    describe('resolving an operation left in flight', () => {
      /** A refund whose answer was lost, handed to an operator as the re-check worker does. */
      async function stalledRefund(by: 'merchant' | 'operator' = 'merchant'): Promise<string> {
        const id = await settledSale();
        const connector = t.gateway.ctx.connectors.get('sandbox-card')!;
        const original = connector.refund;
        connector.refund = async () => {
          throw new Error('connection reset');
        };
        try {
          if (by === 'merchant') await followUp(t, 'CREDITVOID', id, { amount: '2.00' });
          else {
            const res = await post(`/admin/v1/payments/${id}/refund`, { amount: '2.00' }, 'operator');
            assert.equal(res.status, 200, res.text);
            assert.deepEqual([res.body.result, res.body.payment.pending_operation, res.body.payment.refunded_amount], ['pending', 'refund', '2.00']);
          }
        } finally {
          connector.refund = original;
        }
        const p = (await getPayment(t.store.db, id))!;
        assert.equal(p.pendingOperation, 'refund');
        assert.ok(await flagForOperator(t.store.db, p, new Date()));
        return id;
      }
      const refundCallbacks = async (id: string) =>
        (await listCallbacks(t.store.db, { paymentId: id })).filter((c) => c.fields.action === 'CREDITVOID').map((c) => c.fields.result);

      it('marks it settled: the refund stands, the merchant is told, the operator and note are recorded; a second resolve is refused', async () => {
        const id = await stalledRefund();
        assert.equal((await get('/admin/v1/payments?needs_operator=true')).body.payments.filter((p: { id: string }) => p.id === id).length, 1);
        assert.deepEqual((await get(`/admin/v1/payments/${id}`)).body.payment.allowed_actions, [{ action: 'resolve', max_amount: null, partial: false }]);
        const lostAnswer = { reason: 'answer_lost', acquirer_outcome: null, acquirer_reference: null, mismatches: [] };
        assert.deepEqual((await get(`/admin/v1/payments/${id}`)).body.payment.held, lostAnswer, 'why it waits');
        assert.deepEqual((await get('/admin/v1/payments/needs-operator')).body.payments.find((p: { id: string }) => p.id === id).held, lostAnswer);
        const res = await post(`/admin/v1/payments/${id}/resolve`, { outcome: 'settled', note: 'Acquirer portal shows it refunded' }, 'operator');
        assert.equal(res.status, 200, res.text);
        assert.deepEqual((await get(`/admin/v1/payments/${id}`)).body.payment.allowed_actions, [{ action: 'refund', max_amount: '3.00', partial: true }]);
        assert.deepEqual([res.body.payment.status, res.body.payment.refunded_amount, res.body.payment.pending_operation, res.body.payment.needs_operator], ['settled', '2.00', null, false]);
        assert.equal((await get(`/admin/v1/payments/${id}`)).body.payment.held, null, 'nothing waits any more');
        assert.deepEqual(await refundCallbacks(id), ['SUCCESS']);
        const detail = (await get(`/admin/v1/payments/${id}`)).body;
        const refund = detail.transactions.find((x: { type: string }) => x.type === 'refund');
        assert.deepEqual([refund.status, refund.resolution, refund.note], ['success', 'settled', 'Acquirer portal shows it refunded']);
        assert.match(refund.resolved_by.name, /^operator-/);
        const entry = detail.audit.find((a: { action: string }) => a.action === 'payment.resolve');
        assert.deepEqual([entry.details.outcome, entry.before.refunded_amount, entry.after.pending_operation], ['settled', '2.00', null]);

        const again = await post(`/admin/v1/payments/${id}/resolve`, { outcome: 'declined', note: 'double click' }, 'operator');
        assert.equal(again.status, 409, again.text);
        assert.equal(again.body.error_message, 'Payment has no operation waiting for an operator.');
        assert.equal((await getPayment(t.store.db, id))!.refundedAmount, 200n);
      });

      it('marks it declined: the reserved amount is released and the merchant hears of the decline (an operator\'s own refund left in flight)', async () => {
        const id = await stalledRefund('operator');
        const res = await post(`/admin/v1/payments/${id}/resolve`, { outcome: 'declined', note: 'Acquirer never received it' });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual([res.body.payment.status, res.body.payment.refunded_amount], ['settled', '0.00']);
        assert.deepEqual(await refundCallbacks(id), ['DECLINED']);
      });

      it('lets only one of two racing resolves apply', async () => {
        const id = await stalledRefund();
        const results = await Promise.all([
          post(`/admin/v1/payments/${id}/resolve`, { outcome: 'settled', note: 'a' }),
          post(`/admin/v1/payments/${id}/resolve`, { outcome: 'declined', note: 'b' }, 'operator'),
        ]);
        assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
        assert.equal((await refundCallbacks(id)).length, 1);
      });

      it('refuses a payment with nothing to resolve (409) and malformed bodies (400)', async () => {
        const id = await settledSale();
        assert.equal((await post(`/admin/v1/payments/${id}/resolve`, { outcome: 'settled', note: 'x' })).status, 409);
        assertInvalid(await post(`/admin/v1/payments/${id}/resolve`, { outcome: 'maybe', note: 'x' }), ['outcome']);
        assertInvalid(await post(`/admin/v1/payments/${id}/resolve`, { outcome: 'settled' }), ['note']);
        assertInvalid(await post(`/admin/v1/payments/${id}/resolve`, { outcome: 'settled', note: '' }), ['note']);
        assert.equal((await post(`/admin/v1/payments/${UNKNOWN}/resolve`, { outcome: 'settled', note: 'x' })).status, 404);
      });
    });

    describe('resend a callback now', () => {
      it('makes a retrying callback due at once in place, for support but not for a viewer; audited', async () => {
        // A receiver that does not answer OK: the S2S callback is retried, the next attempt a minute away.
        const refusing = await startListener('NO');
        try {
          const m = await t.addMerchant({ notificationUrl: refusing.url });
          const id = await settledSale({}, m);
          await refusing.waitFor(1);
          let callback = (await listCallbacks(t.store.db, { paymentId: id }))[0]!;
          for (let i = 0; i < 200 && callback.attempts < 1; i++) {
            await new Promise((r) => setTimeout(r, 50));
            callback = (await listCallbacks(t.store.db, { paymentId: id }))[0]!;
          }
          assert.equal(callback.status, 'pending');
          assert.equal(callback.attempts, 1);
          assert.ok(callback.nextAttemptAt.getTime() > Date.now() + 30_000, 'retrying later');

          const refused = await post(`/admin/v1/callbacks/${callback.id}/resend`, undefined, 'viewer');
          assert.equal(refused.status, 403);
          const res = await post(`/admin/v1/callbacks/${callback.id}/resend`, undefined, 'support');
          assert.equal(res.status, 200, res.text);
          assert.deepEqual(res.body, { id: callback.id, status: 'pending', result: 'due_now' });
          const attempts = await refusing.waitFor(2, 15_000);
          assert.equal(attempts[1]!.headers['x-callback-id'], callback.id, 'sent again at once, the same event');
          assert.equal((await listCallbacks(t.store.db, { paymentId: id })).length, 1, 'no second row');

          const [audit] = await t.store.db.query<{ user_name: string; details: { result: string } }>(
            "SELECT user_name, details FROM audit_log WHERE action = 'callback.resend' AND object_id = $1", [callback.id]);
          assert.match(audit!.user_name, /^support-/);
          assert.equal(audit!.details.result, 'due_now');
          const shown = (await get(`/admin/v1/payments/${id}`)).body.audit;
          assert.deepEqual(shown.map((a: { action: string; object_type: string; object_id: string }) => [a.action, a.object_type, a.object_id]), [['callback.resend', 'callback', callback.id]]);
        } finally {
          await refusing.close();
        }
      });

      it('leaves a callback being sent this moment to its attempt', async () => {
        const m = await t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/never' });
        const id = await settledSale({}, m);
        const [callback] = await listCallbacks(t.store.db, { paymentId: id });
        // As a dispatcher holds it: under a live lease, its next attempt an hour away.
        await t.store.db.query("UPDATE callbacks SET status = 'pending', locked_until = now() + interval '1 hour', lease_token = 'held', next_attempt_at = now() + interval '1 hour' WHERE id = $1", [callback!.id]);
        const res = await post(`/admin/v1/callbacks/${callback!.id}/resend`, undefined, 'operator');
        assert.deepEqual(res.body, { id: callback!.id, status: 'pending', result: 'sending' });
        const [row] = await t.store.db.query<{ lease_token: string }>('SELECT lease_token FROM callbacks WHERE id = $1', [callback!.id]);
        assert.equal(row!.lease_token, 'held', 'the lease is not taken from the dispatcher');
      });

      it('answers 404 for an unknown callback', async () => {
        assert.equal((await post(`/admin/v1/callbacks/${UNKNOWN}/resend`)).status, 404);
        assert.equal((await post('/admin/v1/callbacks/nope/resend')).status, 404);
      });
    });

    it('describes every endpoint in the OpenAPI document with the Admin tag and error responses', async () => {
      const doc = (await (await fetch(`${t.baseUrl}/docs/json`)).json()) as { paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>> };
      const expected: [string, string][] = [
        ['/admin/v1/payments', 'get'], ['/admin/v1/payments/{id}', 'get'], ['/admin/v1/payments/needs-operator', 'get'],
        ['/admin/v1/payments/{id}/capture', 'post'], ['/admin/v1/payments/{id}/void', 'post'], ['/admin/v1/payments/{id}/refund', 'post'],
        ['/admin/v1/payments/{id}/resolve', 'post'], ['/admin/v1/callbacks/{id}/resend', 'post'],
      ];
      for (const [path, method] of expected) {
        const op = doc.paths[path]?.[method];
        assert.ok(op, `${method} ${path} documented`);
        assert.deepEqual(op.tags, ['Admin']);
        for (const code of ['200', '400', '401', '403']) assert.ok(op.responses[code], `${method} ${path} ${code}`);
      }
    });
  });
}
