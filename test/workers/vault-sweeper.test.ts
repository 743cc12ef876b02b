/**
 * Card vault retention: unreferenced vault rows older than the grace period are deleted; a row any payment,
 * card token or live hosted-fields session names is kept, and so is every row younger than the grace period.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.ts';
import { issueCardToken, keyringFromEnv, purgeUnreferencedCards, storeCard } from '../../src/store/card-vault.ts';
import type { Database, Sql } from '../../src/store/database.ts';
import { MerchantDirectory } from '../../src/store/merchants-repo.ts';
import type { ServiceContext } from '../../src/services/context.ts';
import { VaultSweeper } from '../../src/workers/vault-sweeper.ts';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';

const MINUTE = 60_000;
const RETENTION_MS = 30 * MINUTE;
const PAN = '4012888888881881';
const keyring = keyringFromEnv(undefined, () => randomBytes(32));

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

function contextOf(db: Database, clock: ManualClock, logger: ServiceContext['logger']): ServiceContext {
  return { db, clock, connectors: new Map(), keyring, merchants: new MerchantDirectory(db, keyring), baseUrl: 'http://127.0.0.1', logger };
}

async function addMerchant(sql: Sql): Promise<string> {
  const id = randomUUID();
  await sql.query('INSERT INTO merchants (id, name, merchant_key, password) VALUES ($1, $2, $3, $4)', [id, 'Test shop', randomUUID(), 'secret']);
  return id;
}

async function vaultCard(sql: Sql, merchantId: string, at: Date): Promise<string> {
  const card = await storeCard(sql, keyring, { id: randomUUID(), merchantId, pan: PAN, expMonth: '01', expYear: '2038', now: at });
  return card.id;
}

async function addPayment(sql: Sql, merchantId: string, vaultId: string, at: Date): Promise<void> {
  await sql.query(
    `INSERT INTO payments (id, merchant_id, channel, operation, order_id, amount, currency, status, vault_id, created_at, updated_at)
     VALUES ($1, $2, 's2s', 'purchase', $3, 1000, 'USD', 'settled', $4, $5, $5)`,
    [randomUUID(), merchantId, `order-${randomUUID()}`, vaultId, at],
  );
}

/** A hosted-fields session that collected the card, as recordCollectedCard leaves it. */
async function addSession(sql: Sql, merchantId: string, vaultId: string, expiresAt: Date): Promise<void> {
  const request = { hostedFields: { returnUrl: 'https://shop.example/return' }, collectedCard: { vaultId, mask: '401288****1881' }, cardVaultId: vaultId };
  await sql.query(
    `INSERT INTO sessions (id, merchant_id, operation, order_number, amount, currency, description, request, expires_at, created_at)
     VALUES ($1, $2, 'purchase', $3, 1000, 'USD', 'Order', $4, $5, $5)`,
    [randomBytes(24).toString('base64url'), merchantId, `order-${randomUUID()}`, JSON.stringify(request), expiresAt],
  );
}

async function exists(sql: Sql, vaultId: string): Promise<boolean> {
  return (await sql.query('SELECT 1 FROM card_vault WHERE id = $1', [vaultId])).length === 1;
}

for (const { kind, skip } of await storeKinds()) {
  describe(`card vault sweeper on ${kind}`, { skip }, () => {
    let store: TestStore;
    let db: Database;
    let merchant: string;
    const clock = new ManualClock('2030-01-15T10:00:00Z');
    const log = capturingLogger();
    const sweeper = (batchSize = 500) => new VaultSweeper(contextOf(db, clock, log.logger), { retentionMs: RETENTION_MS, batchSize });
    const ago = (ms: number) => new Date(clock.now().getTime() - ms);

    before(async () => {
      store = await openTestStore(kind);
      db = store.db;
      merchant = await addMerchant(db);
    });
    after(() => store?.dispose());

    it('deletes an unreferenced row older than the grace period, and logs only the count', async () => {
      const abandoned = await vaultCard(db, merchant, ago(RETENTION_MS + MINUTE));
      log.lines.length = 0;
      assert.ok((await sweeper().runOnce()) >= 1);
      assert.equal(await exists(db, abandoned), false);
      const printed = log.lines.join('');
      assert.match(printed, /"removed":\d+/);
      for (const secret of [PAN, PAN.slice(-4), abandoned]) assert.equal(printed.includes(secret), false, secret);
    });

    it('keeps an unreferenced row younger than the grace period', async () => {
      const fresh = await vaultCard(db, merchant, ago(RETENTION_MS - MINUTE));
      await sweeper().runOnce();
      assert.equal(await exists(db, fresh), true);
    });

    it('keeps old rows a payment or a card token references', async () => {
      const paid = await vaultCard(db, merchant, ago(90 * MINUTE));
      await addPayment(db, merchant, paid, ago(90 * MINUTE));
      const tokenized = await vaultCard(db, merchant, ago(90 * MINUTE));
      await issueCardToken(db, { merchantId: merchant, vaultId: tokenized, now: ago(90 * MINUTE) });
      await sweeper().runOnce();
      assert.equal(await exists(db, paid), true);
      assert.equal(await exists(db, tokenized), true);
    });

    it('keeps a hosted-fields card while its session lives, and for the grace period after it expired', async () => {
      const waiting = await vaultCard(db, merchant, ago(5 * 60 * MINUTE));
      await addSession(db, merchant, waiting, new Date(clock.now().getTime() + MINUTE));
      const justExpired = await vaultCard(db, merchant, ago(5 * 60 * MINUTE));
      await addSession(db, merchant, justExpired, ago(RETENTION_MS - MINUTE));
      const longExpired = await vaultCard(db, merchant, ago(5 * 60 * MINUTE));
      await addSession(db, merchant, longExpired, ago(RETENTION_MS + MINUTE));
      await sweeper().runOnce();
      assert.equal(await exists(db, waiting), true);
      assert.equal(await exists(db, justExpired), true);
      assert.equal(await exists(db, longExpired), false);
    });

    it('runOnce is idempotent and works through more rows than one batch', async () => {
      const rows = await Promise.all(Array.from({ length: 7 }, () => vaultCard(db, merchant, ago(2 * RETENTION_MS))));
      const first = await sweeper(3).runOnce();
      assert.ok(first >= rows.length);
      assert.equal(await sweeper(3).runOnce(), 0);
      for (const id of rows) assert.equal(await exists(db, id), false);
    });

    it('after a complete pass looks only at rows younger than a session lifetime before it', async () => {
      const same = sweeper();
      await same.runOnce();
      const recent = await vaultCard(db, merchant, ago(RETENTION_MS + MINUTE));
      // Older than any row a session could still have kept: a complete pass would already have settled it.
      const settledLongAgo = await vaultCard(db, merchant, ago(3 * 24 * 60 * MINUTE));
      assert.ok((await same.runOnce()) >= 1);
      assert.equal(await exists(db, recent), false);
      assert.equal(await exists(db, settledLongAgo), true);
      // A sweeper that starts afresh (a restart) walks the whole vault once.
      assert.ok((await sweeper().runOnce()) >= 1);
      assert.equal(await exists(db, settledLongAgo), false);
    });

    it('two sweepers at once delete every row once, without failing', async () => {
      const rows = await Promise.all(Array.from({ length: 20 }, () => vaultCard(db, merchant, ago(2 * RETENTION_MS))));
      const kept = await vaultCard(db, merchant, ago(2 * RETENTION_MS));
      await addPayment(db, merchant, kept, ago(2 * RETENTION_MS));
      const [a, b] = await Promise.all([sweeper(4).runOnce(), sweeper(4).runOnce()]);
      assert.equal(a + b, rows.length);
      for (const id of rows) assert.equal(await exists(db, id), false);
      assert.equal(await exists(db, kept), true);
    });

    it('skips a row a transaction still in progress is referencing', { skip: kind === 'pglite' && 'PGlite runs one transaction at a time' }, async () => {
      const vaultId = await vaultCard(db, merchant, ago(2 * RETENTION_MS));
      let release!: () => void;
      const released = new Promise<void>((resolve) => { release = resolve; });
      let referenced!: () => void;
      const referencing = new Promise<void>((resolve) => { referenced = resolve; });
      const paying = db.transaction(async (tx) => {
        await addPayment(tx, merchant, vaultId, clock.now()); // its foreign key holds FOR KEY SHARE on the row
        referenced();
        await released;
      });
      await referencing;
      try {
        assert.deepEqual(await purgeUnreferencedCards(db, { cutoff: ago(RETENTION_MS), limit: 10 }), { removed: 0, interrupted: false });
      } finally {
        // Never leave the transaction open, even when the assertion fails: it would hang the run.
        release();
        await paying;
      }
      assert.deepEqual(await purgeUnreferencedCards(db, { cutoff: ago(RETENTION_MS), limit: 10 }), { removed: 0, interrupted: false });
      assert.equal(await exists(db, vaultId), true);
    });
  });
}
