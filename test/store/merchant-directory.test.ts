import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Sql } from '../../src/store/database.ts';
import { MerchantDirectory } from '../../src/store/merchants-repo.ts';
import { TEST_KEYRING } from '../support/keyring.ts';

/** A database of one merchant whose answers wait while the test holds them, counting the merchant lookups. */
function heldDatabase() {
  const state = { name: 'Shop', lookups: 0, failNext: false };
  let release: () => void = () => {};
  let gate = Promise.resolve();
  const sql: Sql = {
    async query<T>(text: string): Promise<T[]> {
      const name = state.name; // read when asked, answered when released
      await gate;
      if (text.includes('FROM mids')) {
        return [{ id: 'mid-1', merchant_id: 'm-1', name: 'Sandbox', connector: 'sandbox-card', payment_mode: 'SMS/DMS', card_on_file_support: false, enabled: true, priority: 0 }] as T[];
      }
      state.lookups += 1;
      if (state.failNext) {
        state.failNext = false;
        throw new Error('connection lost');
      }
      return [{ id: 'm-1', name, merchant_key: 'key-1', password: 'p', sandbox: true, notification_url: null, hash_algorithm: 'md5', settings: {} }] as T[];
    },
  };
  return {
    sql,
    state,
    hold: () => {
      gate = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release(),
  };
}

/** A directory on a clock the test moves, with the merchant looked up once at time 0 and renamed since. */
async function primedDirectory() {
  const db = heldDatabase();
  const clock = { now: 0 };
  const directory = new MerchantDirectory(db.sql, TEST_KEYRING, 5_000, () => clock.now);
  await directory.byMerchantKey('key-1');
  db.state.name = 'Renamed';
  return { db, clock, directory };
}

describe('MerchantDirectory', () => {
  it('shares one lookup among the requests that miss at the same time', async () => {
    const db = heldDatabase();
    const directory = new MerchantDirectory(db.sql, TEST_KEYRING, 5_000);
    db.hold();
    const answers = Array.from({ length: 20 }, () => directory.byMerchantKey('key-1'));
    db.release();
    const found = await Promise.all(answers);
    assert.equal(db.state.lookups, 1);
    assert.ok(found.every((f) => f?.merchant.name === 'Shop' && f.mids.length === 1));
  });

  it('answers from an expired entry at once while one refresh runs, then from the refreshed one', async () => {
    const { db, clock, directory } = await primedDirectory();
    clock.now = 6_000;
    db.hold();
    const during = await Promise.all(Array.from({ length: 10 }, () => directory.byMerchantKey('key-1')));
    assert.ok(during.every((f) => f?.merchant.name === 'Shop'), 'nobody waits for the refresh');
    db.release();
    await new Promise((r) => setImmediate(r));
    assert.equal(db.state.lookups, 2, 'one refresh for all of them');
    assert.equal((await directory.byMerchantKey('key-1'))?.merchant.name, 'Renamed');
  });

  it('waits for a fresh lookup once an entry is older than twice its lifetime', async () => {
    const { clock, directory } = await primedDirectory();
    clock.now = 10_000;
    assert.equal((await directory.byMerchantKey('key-1'))?.merchant.name, 'Renamed');
  });

  it('keeps an expired entry when its refresh fails, and retries on the next request', async () => {
    const { db, clock, directory } = await primedDirectory();
    clock.now = 6_000;
    db.state.failNext = true;
    assert.equal((await directory.byMerchantKey('key-1'))?.merchant.name, 'Shop');
    await new Promise((r) => setImmediate(r));
    assert.equal((await directory.byMerchantKey('key-1'))?.merchant.name, 'Shop', 'the retry is under way');
    await new Promise((r) => setImmediate(r));
    assert.equal((await directory.byMerchantKey('key-1'))?.merchant.name, 'Renamed');
    assert.equal(db.state.lookups, 3);
  });

  it('does not keep what a lookup read before invalidate()', async () => {
    const db = heldDatabase();
    const directory = new MerchantDirectory(db.sql, TEST_KEYRING, 5_000);
    db.hold();
    const before = directory.byMerchantKey('key-1');
    directory.invalidate();
    db.state.name = 'Renamed';
    db.release();
    assert.equal((await before)?.merchant.name, 'Shop');
    assert.equal((await directory.byMerchantKey('key-1'))?.merchant.name, 'Renamed');
  });

  it('remembers that a key names no merchant', async () => {
    const db = heldDatabase();
    const empty: Sql = { query: async () => { db.state.lookups += 1; return []; } };
    const directory = new MerchantDirectory(empty, TEST_KEYRING, 5_000);
    assert.equal(await directory.byMerchantKey('nobody'), undefined);
    assert.equal(await directory.byMerchantKey('nobody'), undefined);
    assert.equal(db.state.lookups, 1);
  });
});
