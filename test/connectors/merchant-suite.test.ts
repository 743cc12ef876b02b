/**
 * One merchant-facing suite, run once per connector: the sandbox, the upstream chain (akurateco, a second
 * Portcullis) and Adyen (prism serving Adyen's description). The merchant does the same things (a SALE, a 3DS
 * SALE, auth and capture, void, refund, recurring, status lookup) and gets answers and callbacks of the same
 * shape: the same fields, whatever the acquirer. Acquirer-specific steps (the payer on the ACS, Adyen's webhooks)
 * are done by each setup's own driver.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds, type StoreKind } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { followUp, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { recurringSale } from '../recurring/support.ts';
import { startChain, upstreamPayments, waitUntil } from './support.ts';
import { prismUnavailable, startAdyenMock, webhookExample } from './adyen-support.ts';
import { hmacSignature } from '../../src/connectors/adyen/adyen.ts';

const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

interface Setup {
  gw: TestGateway;
  /** The payer passes the 3DS challenge of payment `id` wherever the acquirer put it. */
  passChallenge(id: string): Promise<void>;
  /** Whatever the acquirer does after accepting a follow-up (a webhook) until it is final. */
  settle(id: string, operation: 'capture' | 'refund' | 'void'): Promise<void>;
  /** Prepares the acquirer's next authorization answer (the mock's scenario). */
  next(kind: 'plain' | '3ds'): void;
  close(): Promise<void>;
}

type Factory = (kind: StoreKind, notificationUrl: string) => Promise<Setup>;

const SETUPS: Record<string, { skip: string | false; start: Factory }> = {
  sandbox: {
    skip: false,
    start: async (kind, notificationUrl) => {
      const gw = await startTestGateway(kind, { workers: true, notificationUrl });
      return {
        gw,
        passChallenge: async (id) => {
          const res = await fetch(`${gw.baseUrl}/sandbox/acs/${id}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit', redirect: 'manual' });
          await res.text();
        },
        settle: async () => {},
        next: () => {},
        close: () => gw.close(),
      };
    },
  },
  'upstream chain (akurateco)': {
    skip: false,
    start: async (kind, notificationUrl) => {
      const chain = await startChain(kind, { notificationUrl });
      return {
        gw: chain.ours,
        passChallenge: async (id) => {
          const [up] = await upstreamPayments(chain, id);
          // The payer submits the upstream's ACS form; the upstream's page then sends them back to us.
          const done = await fetch(`${chain.upstream.baseUrl}/sandbox/acs/${up!.id}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit' });
          const page = await done.text();
          const back = /(http:\/\/127\.0\.0\.1:\d+\/connectors\/return\/[0-9a-f-]+)/.exec(page)?.[1];
          assert.ok(back, 'the upstream sends the payer back to our return URL');
          await (await fetch(back)).text();
        },
        settle: async (id) => {
          await waitUntil('the upstream callback applied', async () => {
            const rows = await chain.ours.store.db.query<{ pending_operation: string | null }>('SELECT pending_operation FROM payments WHERE id = $1', [id]);
            return rows[0]?.pending_operation === null ? true : undefined;
          });
        },
        next: () => {},
        close: () => chain.close(),
      };
    },
  },
  'Adyen (prism mock)': {
    skip: prismUnavailable(),
    start: async (kind, notificationUrl) => {
      const mock = await startAdyenMock();
      const midId = crypto.randomUUID();
      const gw = await startTestGateway(kind, {
        workers: true, notificationUrl, sandbox: false,
        mids: [{ id: midId, paymentMode: 'SMS/DMS', connector: 'adyen', settings: { baseUrl: mock.url, merchantAccount: 'PortcullisECOM', environment: 'test' }, credentials: { apiKey: 'k', hmacKey: HMAC_KEY } }],
      });
      mock.scenario.set('/payments/details', '00.redirect');
      for (const op of ['captures', 'refunds', 'cancels', 'reversals']) mock.scenario.set(`/${op}`, op === 'cancels' ? 'cancel-with-psp-reference' : op.slice(0, -1));
      const webhook = async (name: string, id: string, change: Record<string, unknown> = {}) => {
        const body = webhookExample(name);
        const item = body.notificationItems[0].NotificationRequestItem;
        Object.assign(item, { merchantReference: id, merchantAccountCode: 'PortcullisECOM', success: 'true', reason: '' }, change);
        item.additionalData = { hmacSignature: hmacSignature(item, HMAC_KEY) };
        const res = await fetch(`${gw.baseUrl}/connectors/adyen/${midId}/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(res.status, 200);
      };
      return {
        gw,
        passChallenge: async (id) => {
          await (await fetch(`${gw.baseUrl}/connectors/return/${id}?redirectResult=X6XtfGC3`)).text();
        },
        settle: (id, operation) => webhook({ capture: 'post-CAPTURE-capture', refund: 'post-REFUND-refund', void: 'post-CANCEL_OR_REFUND-cancel_or_refund' }[operation], id),
        next: (k) => mock.scenario.set('/payments', k === '3ds' ? 'card-3d-secure-redirect' : 'on-demand-top-up-visa'),
        close: async () => {
          await gw.close();
          await mock.close();
        },
      };
    },
  },
};

const keys = (o: Record<string, unknown>) => Object.keys(o).sort();

/** What the merchant saw, by step: the fields of each answer and callback (values vary by acquirer). */
type Shapes = Record<string, string[]>;
const observed = new Map<string, Shapes>();

for (const { kind, skip } of await storeKinds()) {
  for (const [name, setup] of Object.entries(SETUPS)) {
    describe(`merchant-facing suite through ${name} (${kind})`, { skip: skip || setup.skip || false }, () => {
      let s: Setup;
      let callbacks: Listener;
      const shapes: Shapes = {};
      before(async () => {
        callbacks = await startListener('OK');
        s = await setup.start(kind, callbacks.url);
      });
      after(async () => {
        observed.set(`${name} ${kind}`, shapes);
        await s?.close();
        await callbacks?.close();
      });
      const callback = (id: string, action: string) => waitUntil(`${action} callback`, async () => callbacks.received.find((c) => c.fields.trans_id === id && c.fields.action === action && c.fields.result !== 'REDIRECT')?.fields);

      it('SALE, its callback, status lookup', async () => {
        s.next('plain');
        const res = await sale(s.gw);
        assert.equal(res.body.result, 'SUCCESS', res.text);
        shapes.sale = keys(res.body);
        shapes.saleCallback = keys(await callback(res.body.trans_id, 'SALE'));
        const status = await followUp(s.gw, 'GET_TRANS_STATUS', res.body.trans_id);
        assert.equal(status.body.status, 'SETTLED');
        shapes.status = keys(status.body);
      });

      it('3DS SALE: REDIRECT, the challenge passed, SETTLED by callback', async () => {
        s.next('3ds');
        const res = await sale(s.gw, { card_exp_month: '05' });
        assert.equal(res.body.result, 'REDIRECT', res.text);
        shapes.sale3ds = keys(res.body);
        await s.passChallenge(res.body.trans_id);
        const cb = await callback(res.body.trans_id, 'SALE');
        assert.equal(cb.status, 'SETTLED');
        shapes.sale3dsCallback = keys(cb);
      });

      it('auth and CAPTURE', async () => {
        s.next('plain');
        const auth = await sale(s.gw, { auth: 'Y', order_amount: '10.00' });
        assert.equal(auth.body.status, 'PENDING', auth.text);
        const cap = await followUp(s.gw, 'CAPTURE', auth.body.trans_id, { amount: '10.00' });
        shapes.capture = keys(cap.body);
        await s.settle(auth.body.trans_id, 'capture');
        const cb = await callback(auth.body.trans_id, 'CAPTURE');
        assert.equal(cb.result, 'SUCCESS');
        shapes.captureCallback = keys(cb);
      });

      it('VOID of a sale and its callback', async () => {
        s.next('plain');
        const paid = await sale(s.gw);
        const res = await followUp(s.gw, 'VOID', paid.body.trans_id);
        shapes.void = keys(res.body);
        await s.settle(paid.body.trans_id, 'void');
        const cb = await callback(paid.body.trans_id, 'VOID');
        assert.equal(cb.result, 'SUCCESS');
        shapes.voidCallback = keys(cb);
        assert.equal((await followUp(s.gw, 'GET_TRANS_STATUS', paid.body.trans_id)).body.status, 'VOID');
      });

      it('CREDITVOID (refund) and its callback', async () => {
        s.next('plain');
        const paid = await sale(s.gw, { order_amount: '10.00' });
        const res = await followUp(s.gw, 'CREDITVOID', paid.body.trans_id, { amount: '10.00' });
        assert.equal(res.body.result, 'ACCEPTED', res.text);
        shapes.refund = keys(res.body);
        await s.settle(paid.body.trans_id, 'refund');
        const cb = await callback(paid.body.trans_id, 'CREDITVOID');
        assert.equal(cb.result, 'SUCCESS');
        shapes.refundCallback = keys(cb);
        assert.equal((await followUp(s.gw, 'GET_TRANS_STATUS', paid.body.trans_id)).body.status, 'REFUND');
      });

      it('recurring: a chain started by SALE, charged by RECURRING_SALE', async () => {
        s.next('plain');
        const first = await sale(s.gw, { recurring_init: 'Y' });
        assert.equal(first.body.result, 'SUCCESS', first.text);
        assert.ok(first.body.recurring_token);
        const charge = await recurringSale(s.gw, { initId: first.body.trans_id, token: first.body.recurring_token });
        assert.equal(charge.body.result, 'SUCCESS', charge.text);
        shapes.recurring = keys(charge.body);
      });
    });
  }

  describe(`the merchant sees the same shapes whatever the connector (${kind})`, { skip }, () => {
    it('answers and callbacks carry the same fields', () => {
      const runs = [...observed].filter(([k]) => k.endsWith(` ${kind}`));
      assert.ok(runs.length >= 2, `at least two connectors ran: ${runs.map(([k]) => k).join(', ')}`);
      const [[refName, ref]] = runs as [[string, Shapes]];
      for (const [other, shapes] of runs.slice(1)) {
        for (const step of Object.keys(ref)) assert.deepEqual(shapes[step], ref[step], `${step}: ${other} vs ${refName}`);
        assert.deepEqual(Object.keys(shapes).sort(), Object.keys(ref).sort(), `${other} ran every step`);
      }
    });
  });
}
