/**
 * The database work of a SALE, as the performance of a payment write depends on it: two statements and no
 * transaction for a payment whose outcome sends no callback; the outcome and its callback in one transaction
 * otherwise. The risk engine (issue 26) has no statement of its own: its evaluation with the attempt's counters
 * rides in the payment's insert, the outcome's counters in the payment's update (issue 24: as statements of their
 * own, uncommitted-together and ungrouped, they queued on the counters' row locks and cost a commit each, and
 * the SALE fell from 0.8 to 0.25 of the bare endpoint); with no rule that could read a counter and no list entry
 * it reads nothing. A regression here shows in `npm run bench` long before anyone reads a profile.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sale, startListener, type Listener } from './support.ts';

/** The merchant cache's version poll runs on its own timer, whatever the requests; it is not a SALE's work. */
const BACKGROUND = /FROM directory_version/;
/** The merchant cache loading a merchant and its MIDs (once, then after a change of either). */
const CACHE_LOAD = /FROM (merchants|mids) WHERE/;
/**
 * The risk engine's own statements (its reads, or its evaluation and counters written alone), counted apart; the
 * payment's statements that carry its writes are the payment's.
 */
const RISK_TABLES = /risk_evaluations|risk_velocity|risk_list_entries|risk_rule_sets/;
const RISK = { test: (text: string) => RISK_TABLES.test(text) && !/INSERT INTO payments|UPDATE payments/.test(text) };

/** Records the statements run through the store, and the transactions opened. */
function spy(gw: TestGateway) {
  const db = gw.store.db;
  const seen = { statements: [] as string[], risk: [] as string[], transactions: 0 };
  const query = db.query.bind(db);
  db.query = (text, params) => {
    if (!BACKGROUND.test(text)) (RISK.test(text) ? seen.risk : seen.statements).push(text);
    return query(text, params);
  };
  const transaction = db.transaction.bind(db);
  db.transaction = (fn) => {
    seen.transactions += 1;
    return transaction((tx) => fn({
      query: (text, params) => {
        (RISK.test(text) ? seen.risk : seen.statements).push(text);
        return tx.query(text, params);
      },
    }));
  };
  return {
    seen,
    reset() {
      seen.statements.length = 0;
      seen.risk.length = 0;
      seen.transactions = 0;
    },
  };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S CARD SALE database writes (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    let watch: ReturnType<typeof spy>;
    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind);
      watch = spy(gw);
    });
    after(async () => {
      await gw.close();
      await listener.close();
    });

    it('writes a SALE without a callback in two statements and no transaction', async () => {
      await sale(gw); // loads the merchant and its MIDs into the cache
      watch.reset();
      let res = await sale(gw);
      // The notification of the test's own merchant set-up may reach the cache's listener after the first sale (a
      // loaded machine): the cache then reloads once. That reload is no SALE's work; a sale on the warm cache is.
      for (let i = 0; i < 5 && watch.seen.statements.some((text) => CACHE_LOAD.test(text)); i++) {
        watch.reset();
        res = await sale(gw);
      }
      assert.equal(res.body.status, 'SETTLED', res.text);
      assert.equal(watch.seen.transactions, 0);
      assert.equal(watch.seen.statements.length, 2, watch.seen.statements.join('\n'));
      assert.match(watch.seen.statements[0]!, /INSERT INTO payments/);
      assert.match(watch.seen.statements[0]!, /INSERT INTO risk_evaluations/);
      // The default rules count distinct cards (members) but no attempts: the counters' CTE is left out.
      assert.match(watch.seen.statements[0]!, /INSERT INTO risk_velocity_members /);
      assert.doesNotMatch(watch.seen.statements[0]!, /INSERT INTO risk_velocity AS v/);
      assert.match(watch.seen.statements[1]!, /UPDATE payments/);
      assert.match(watch.seen.statements[1]!, /UPDATE risk_evaluations/);
      assert.equal(watch.seen.risk.length, 0, watch.seen.risk.join('\n'));
    });

    it('writes the outcome of a SALE with a callback URL and its callback in one statement, without a transaction', async () => {
      await sale(gw, { callback_url: listener.url });
      watch.reset();
      let res = await sale(gw, { callback_url: listener.url });
      // As above: a cache entry that ran out of its 5 s between the two sales on a loaded machine, or a late
      // notification, reloads once; that reload is no SALE's work.
      for (let i = 0; i < 5 && watch.seen.statements.some((text) => CACHE_LOAD.test(text)); i++) {
        watch.reset();
        res = await sale(gw, { callback_url: listener.url });
      }
      assert.equal(res.body.status, 'SETTLED', res.text);
      assert.equal(watch.seen.transactions, 0);
      assert.deepEqual(watch.seen.statements.map((text) => text.match(/INSERT INTO \w+|UPDATE \w+/)?.[0]), ['INSERT INTO payments', 'UPDATE payments']);
      assert.match(watch.seen.statements[1]!, /INSERT INTO callbacks/);
      const [callback] = await gw.store.db.query<{ fields: Record<string, string> }>('SELECT fields FROM callbacks WHERE payment_id = $1', [res.body.trans_id]);
      assert.equal(callback?.fields.status, 'SETTLED');
    });
  });
}
