/**
 * A failure of ours after an Idempotency-Key was reserved must not let a retry under the same key charge again:
 * the first request may have reached the acquirer before the store failed. The store here fails the outcome
 * write of one SALE (after the payment row and the connector call), the merchant retries with the same key.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { StoreUnavailableError, type Database, type Sql } from '../../src/store/database.ts';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { saleFields, signedSale } from '../s2s-card/support.ts';
import { ConflictError, Portcullis } from '../../sdk/node/src/index.ts';

/**
 * The store, with switches: the next statement matching a pattern fails as a lost connection would, or waits
 * until released (a request still running when its retry arrives).
 */
function failingOnce(real: TestStore): { store: TestStore; failNext(pattern: RegExp): void; holdNext(pattern: RegExp): { reached: Promise<void>; release(): void } } {
  let armed: RegExp | undefined;
  let held: { pattern: RegExp; reached(): void; released: Promise<void> } | undefined;
  const guard = (sql: Sql): Sql['query'] => (text, params) => {
    if (armed?.test(text)) {
      armed = undefined;
      return Promise.reject(new StoreUnavailableError('connection lost (test)'));
    }
    if (held?.pattern.test(text)) {
      const { reached, released } = held;
      held = undefined;
      reached();
      return released.then(() => sql.query(text, params));
    }
    return sql.query(text, params);
  };
  const db: Database = {
    kind: real.db.kind,
    query: guard(real.db) as Database['query'],
    transaction: (fn) => real.db.transaction((tx) => fn({ query: guard(tx) as Sql['query'] })),
    close: () => real.db.close(),
    ...(real.db.listen ? { listen: real.db.listen.bind(real.db) } : {}),
  };
  return {
    store: { db, dispose: () => real.dispose() },
    failNext: (pattern) => { armed = pattern; },
    holdNext(pattern) {
      let reached!: () => void;
      let release!: () => void;
      const reachedP = new Promise<void>((r) => { reached = r; });
      held = { pattern, reached, released: new Promise<void>((r) => { release = r; }) };
      return { reached: reachedP, release };
    },
  };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`Idempotency-Key after a failure of ours (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let failNext: (pattern: RegExp) => void;
    let holdNext: ReturnType<typeof failingOnce>['holdNext'];
    before(async () => {
      const wrapped = failingOnce(await openTestStore(kind));
      failNext = wrapped.failNext;
      holdNext = wrapped.holdNext;
      gw = await startTestGateway(kind, { store: wrapped.store });
    });
    after(() => gw?.close());

    const post = async (fields: Record<string, unknown>, key: string) => {
      const res = await fetch(`${gw.baseUrl}/post`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key },
        body: new URLSearchParams(fields as Record<string, string>).toString(),
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
    };
    /** The merchant SDK, counting the requests it sends and keeping the last body. */
    const sdkCounting = () => {
      const sent = { count: 0, body: '', answered: 0 };
      const counting: typeof fetch = async (input, init) => {
        sent.count += 1;
        sent.body = String(init?.body ?? '');
        const res = await fetch(input, init);
        sent.answered += 1;
        return res;
      };
      return { sent, client: new Portcullis({ baseUrl: gw.baseUrl, merchantKey: gw.merchant.key, password: gw.merchant.password, fetch: counting, retryDelayMs: 10 }) };
    };
    /** A SALE as the SDK takes it: the wire fields without what the SDK adds itself. */
    const saleRequest = () => {
      const { action: _action, ...request } = saleFields();
      return request as unknown as Parameters<Portcullis['s2sCard']['sale']>[0];
    };
    const rawPost = async (body: string, key: string) => {
      const res = await fetch(`${gw.baseUrl}/post`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key }, body });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
    };

    it('a SALE whose outcome write failed is neither replayed nor charged again under its key', async () => {
      const fields = signedSale(gw.merchant, saleFields());
      failNext(/UPDATE payments/);
      const first = await post(fields, 'sale-after-failure');
      assert.equal(first.status, 503, JSON.stringify(first.body));
      assert.equal(first.body.result, 'ERROR');

      const retry = await post(fields, 'sale-after-failure');
      assert.equal(retry.status, 409, JSON.stringify(retry.body));
      assert.equal(retry.body.result, 'ERROR');
      assert.equal(retry.body.error_code, '100000');
      assert.match(String(retry.body.error_message), /failed on our side and may have taken effect: look the payment up/);
      assert.equal(retry.replayed, null, 'a failure is not replayed as if it were the answer');
      assert.equal(retry.retryAfter, null, 'nothing to wait for: the same request cannot get another answer');


      const payments = await gw.store.db.query('SELECT id FROM payments WHERE order_id = $1', [fields.order_id]);
      assert.equal(payments.length, 1, 'one payment for the order: the retry did not run');
    });

    it('the SDK gives up at once on a 409 without Retry-After: its retries would only meet the same answer', async () => {
      const request = saleRequest();
      const { sent, client } = sdkCounting();
      failNext(/UPDATE payments/);
      const failed = await client.s2sCard.sale(request, { idempotencyKey: 'sdk-after-failure', maxRetries: 0 }).catch((e: unknown) => e);
      assert.equal((failed as { status?: number }).status, 503, String(failed));
      sent.count = 0;
      const err = await client.s2sCard.sale(request, { idempotencyKey: 'sdk-after-failure' }).catch((e: unknown) => e);
      assert.ok(err instanceof ConflictError, String(err));
      assert.match(err.message, /may have taken effect/);
      assert.equal(err.idempotencyKey, 'sdk-after-failure');
      assert.equal(sent.count, 1, 'no retry of a final 409');
    });

    it('a retry while the first request still runs is told when to come back; the SDK waits and gets the first answer', async () => {
      const request = saleRequest();
      const first = sdkCounting();
      const hold = holdNext(/UPDATE payments/);
      const answer = first.client.s2sCard.sale(request, { idempotencyKey: 'sale-still-running', maxRetries: 0 });
      await hold.reached;
      const early = await rawPost(first.sent.body, 'sale-still-running');
      assert.equal(early.status, 409, JSON.stringify(early.body));
      assert.equal(early.body.error_message, 'Previous operation on this payment is not completed.');
      assert.equal(early.retryAfter, '1', 'Retry-After: the answer is coming');

      const second = sdkCounting();
      const retried = second.client.s2sCard.sale(request, { idempotencyKey: 'sale-still-running' });
      // Released once the SDK's first request has its 409 (not after a fixed 100 ms, which a busy machine outlasts).
      for (const until = Date.now() + 15_000; second.sent.answered === 0 && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
      hold.release();
      const answered = await answer;
      assert.equal(answered.status, 'SETTLED', JSON.stringify(answered));
      assert.deepEqual(await retried, answered, 'the SDK got the first request\'s answer, replayed');
      assert.ok(second.sent.count >= 2, `the SDK retried the 409 (${second.sent.count} requests)`);
      const payments = await gw.store.db.query('SELECT id FROM payments WHERE order_id = $1', [request.order_id]);
      assert.equal(payments.length, 1, 'one payment for the order');
    });

    it('a request refused before it ran (bad input) leaves its key free for the corrected request', async () => {
      const fields = signedSale(gw.merchant, saleFields());
      const bad = await post({ ...fields, order_amount: 'ten' }, 'corrected-later');
      assert.equal(bad.status, 400);
      const good = await post(fields, 'corrected-later');
      assert.equal(good.status, 200, JSON.stringify(good.body));
      assert.equal(good.body.status, 'SETTLED');
      const again = await post(fields, 'corrected-later');
      assert.equal(again.replayed, 'true');
      assert.deepEqual(again.body, good.body);
    });
  });
}
