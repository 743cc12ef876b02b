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

/** The store, with a switch that makes the next statement matching `pattern` fail as a lost connection would. */
function failingOnce(real: TestStore): { store: TestStore; failNext(pattern: RegExp): void } {
  let armed: RegExp | undefined;
  const guard = (sql: Sql): Sql['query'] => (text, params) => {
    if (armed?.test(text)) {
      armed = undefined;
      return Promise.reject(new StoreUnavailableError('connection lost (test)'));
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
  return { store: { db, dispose: () => real.dispose() }, failNext: (pattern) => { armed = pattern; } };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`Idempotency-Key after a failure of ours (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let failNext: (pattern: RegExp) => void;
    before(async () => {
      const wrapped = failingOnce(await openTestStore(kind));
      failNext = wrapped.failNext;
      gw = await startTestGateway(kind, { store: wrapped.store });
    });
    after(() => gw?.close());

    const post = async (fields: Record<string, unknown>, key: string) => {
      const res = await fetch(`${gw.baseUrl}/post`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key },
        body: new URLSearchParams(fields as Record<string, string>).toString(),
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as Record<string, unknown> };
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

      const payments = await gw.store.db.query('SELECT id FROM payments WHERE order_id = $1', [fields.order_id]);
      assert.equal(payments.length, 1, 'one payment for the order: the retry did not run');
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
