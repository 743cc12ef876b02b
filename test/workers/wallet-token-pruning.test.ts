/**
 * The wallet token uses (the rows that make an Apple or Google Pay token single-use) are pruned by the risk pruner
 * once their token expired over the margin ago, on the test clock; a use whose token is still valid (or only just
 * expired) is kept and still refuses the token's replay.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.ts';
import { keyringFromEnv } from '../../src/store/card-vault.ts';
import type { Database, Sql } from '../../src/store/database.ts';
import { MerchantDirectory } from '../../src/store/merchants-repo.ts';
import { claimWalletToken } from '../../src/store/wallet-token-uses.ts';
import type { ServiceContext } from '../../src/services/context.ts';
import { WALLET_TOKEN_USE_MARGIN_MS } from '../../src/services/wallets/wallet-tokens.ts';
import { RiskPruner } from '../../src/workers/risk-pruner.ts';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';

const MINUTE = 60_000;
const keyring = keyringFromEnv(undefined, () => randomBytes(32));

async function addMerchant(sql: Sql): Promise<string> {
  const id = randomUUID();
  await sql.query('INSERT INTO merchants (id, name, merchant_key, password) VALUES ($1, $2, $3, $4)', [id, 'Wallet shop', randomUUID(), 'secret']);
  return id;
}

for (const { kind, skip } of await storeKinds()) {
  describe(`wallet token uses pruned by the risk pruner on ${kind}`, { skip }, () => {
    let store: TestStore;
    let db: Database;
    let merchant: string;
    const clock = new ManualClock('2030-02-10T10:00:00Z');
    const ctx = (): ServiceContext => ({ db, clock, connectors: new Map(), keyring, merchants: new MerchantDirectory(db, keyring), baseUrl: 'http://127.0.0.1', logger: pino({ level: 'silent' }) });
    const claim = (messageId: string, expiresAt: Date, wallet = 'googlepay') => claimWalletToken(db, { merchantId: merchant, wallet, messageId, expiresAt });
    const ids = async () => (await db.query<{ message_id: string }>('SELECT message_id FROM wallet_token_uses WHERE merchant_id = $1 ORDER BY message_id', [merchant])).map((r) => r.message_id);

    before(async () => {
      store = await openTestStore(kind);
      db = store.db;
      merchant = await addMerchant(db);
    });
    after(() => store?.dispose());

    it('deletes uses whose token expired over the margin ago, in batches; keeps the rest, which still refuse a replay', async () => {
      const start = clock.now().getTime();
      // Five tokens valid for ten minutes, one valid for a day, one Apple Pay use remembered for two hours.
      for (const n of [1, 2, 3, 4, 5]) assert.equal(await claim(`short-${n}`, new Date(start + 10 * MINUTE)), true);
      assert.equal(await claim('long', new Date(start + 24 * 60 * MINUTE)), true);
      assert.equal(await claim('apple', new Date(start + 120 * MINUTE), 'applepay'), true);
      assert.equal(await claim('short-1', new Date(start + 10 * MINUTE)), false, 'a claimed token is refused a second time');

      const pruner = new RiskPruner(ctx(), { walletBatch: 2 });
      // Expired, but not yet by the margin: nothing goes.
      clock.advance(10 * MINUTE + WALLET_TOKEN_USE_MARGIN_MS - MINUTE);
      await pruner.runOnce();
      assert.deepEqual(await ids(), ['apple', 'long', 'short-1', 'short-2', 'short-3', 'short-4', 'short-5']);
      assert.equal(await claim('short-3', new Date(start + 10 * MINUTE)), false);

      // Past the margin: the five short ones go in one pass (three batches of two), the others stay.
      clock.advance(2 * MINUTE);
      assert.equal(await pruner.runOnce(), 5);
      assert.deepEqual(await ids(), ['apple', 'long']);
      assert.equal(await claim('long', new Date(start + 24 * 60 * MINUTE)), false, 'a valid token is still refused a replay');
      assert.equal(await claim('apple', new Date(start + 120 * MINUTE), 'applepay'), false);

      clock.advance(120 * MINUTE);
      assert.equal(await pruner.runOnce(), 1);
      assert.deepEqual(await ids(), ['long']);
      assert.equal(await pruner.runOnce(), 0, 'an idle pass deletes nothing');
    });
  });
}
