/**
 * Restarting keeps every payment: the embedded store lives in DATA_DIR, and PostgreSQL is PostgreSQL.
 * A gateway is started, a payment made, the gateway stopped and started again on the same data.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { assembleGateway, loadKeyring, openStore } from '../../src/gateway.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { ensureDemoMerchant } from '../../src/demo.ts';
import { checkoutHash } from '../support/merchant.ts';
import { postgresUnavailable, TEST_DATABASE_URL } from '../support/stores.ts';

const logger = createLogger('silent');

async function runOnce(config: Config, action: (baseUrl: string, merchant: { key: string; password: string }) => Promise<unknown>) {
  const db = await openStore(config);
  const keyring = await loadKeyring(config, logger);
  const gateway = await assembleGateway({ config, db, keyring, logger });
  const demo = await ensureDemoMerchant(db, keyring, config.demoMerchant);
  assert.ok(demo, 'the demo merchant is found again by its key');
  const address = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  try {
    return await action(address, demo);
  } finally {
    await gateway.close();
    await db.close();
  }
}

async function pay(baseUrl: string, m: { key: string; password: string }) {
  const order = { number: `restart-${Date.now()}`, amount: '9.99', currency: 'EUR', description: 'Survives restarts' };
  const res = await fetch(`${baseUrl}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      merchant_key: m.key, operation: 'purchase', methods: ['card'], order,
      success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel',
      billing_address: { country: 'DE', city: 'Berlin', address: 'Main street 1', zip: '10117' },
      hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
    }),
  });
  const { redirect_url } = (await res.json()) as { redirect_url: string };
  await fetch(`${baseUrl}${new URL(redirect_url).pathname}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4111111111111111', card_expiry: '01/38', card_cvv: '123', card_holder: 'Max Muster' }).toString(),
  });
  return order.number;
}

async function status(baseUrl: string, m: { key: string; password: string }, orderId: string) {
  const res = await fetch(`${baseUrl}/api/v1/payment/status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ merchant_key: m.key, order_id: orderId, hash: checkoutHash(m.password, orderId) }),
  });
  return (await res.json()) as { status: string; card?: string };
}

const demo = { key: `demo-${randomBytes(4).toString('hex')}`, password: randomBytes(8).toString('hex') };

describe('restarting keeps every payment', () => {
  it('embedded PGlite in DATA_DIR', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portcullis-'));
    const config = { ...loadConfig({ DATA_DIR: dataDir, DEMO_MERCHANT_KEY: demo.key, DEMO_MERCHANT_PASSWORD: demo.password }), baseUrl: 'http://127.0.0.1' };
    try {
      const orderId = (await runOnce(config, pay)) as string;
      const after = (await runOnce(config, (url, m) => status(url, m, orderId))) as { status: string };
      assert.equal(after.status, 'settled');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL from DATABASE_URL', async (t) => {
    const reason = await postgresUnavailable();
    if (reason) return t.skip(reason);
    const schema = `restart_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portcullis-'));
    const config = { ...loadConfig({ DATABASE_URL: url.toString(), DATA_DIR: dataDir, DEMO_MERCHANT_KEY: demo.key, DEMO_MERCHANT_PASSWORD: demo.password }), baseUrl: 'http://127.0.0.1' };
    try {
      const orderId = (await runOnce(config, pay)) as string;
      const after = (await runOnce(config, (u, m) => status(u, m, orderId))) as { status: string };
      assert.equal(after.status, 'settled');
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
