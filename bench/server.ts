/**
 * The processes under load for `npm run bench`: the gateway on PostgreSQL, and beside it a bare Fastify
 * endpoint doing one INSERT and one UPDATE through the same driver (the yardstick of a payment write).
 * Prints one JSON line with the ports and the fixtures the load generator needs.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import Fastify from 'fastify';
import pg from 'pg';
import { assembleGateway } from '../src/gateway.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres } from '../src/store/database.ts';
import { keyringFromEnv } from '../src/store/card-vault.ts';
import { createLogger } from '../src/logger.ts';
import { insertMerchant, insertMid } from '../src/store/merchants-repo.ts';
import { newId } from '../src/domain/ids.ts';
import { parseFeeRows } from '../src/domain/ledger/fees.ts';
import { insertFeeSchedule } from '../src/store/ledger-repo.ts';
import { ruleSetsOf, saveRuleSet } from '../src/store/risk-repo.ts';
import { forgetRuleSet, PLATFORM_SCOPE } from '../src/services/risk/engine.ts';
import { FIFTY } from './risk-rules.ts';
import { recordSaleWrites, saleWritesReplay } from './sale-writes.ts';
import { card6_4, checkout, checkoutHash, s2sCard, s2sHash } from '../src/domain/signatures.ts';

/** The vault keys of this run: the merchants written before the gateway starts are sealed with them. */
const BENCH_KEYRING = keyringFromEnv(undefined, () => randomBytes(32));

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_${randomBytes(4).toString('hex')}`;

async function startBare(ledger: (on: boolean) => void, riskRules: (fifty: boolean) => Promise<void>, saleWrites: { replay?: () => Promise<string> }): Promise<number> {
  // The gateway's pool settings (src/store/database.ts): idle connections kept, so that a latency load, which
  // comes a while after the full-speed one that opened them, times the writes rather than backends starting.
  const pool = new pg.Pool({ connectionString: url, max: 20, idleTimeoutMillis: 5 * 60_000, allowExitOnIdle: true, options: `-c search_path=${schema}` });
  await pool.query('CREATE TABLE bare (id text PRIMARY KEY, amount bigint NOT NULL, status text NOT NULL, updated_at timestamptz)');
  const app = Fastify();
  app.post('/bare', async () => {
    const id = newId();
    await pool.query('INSERT INTO bare (id, amount, status) VALUES ($1, $2, $3)', [id, 1000, 'prepare']);
    await pool.query('UPDATE bare SET status = $2, updated_at = now() WHERE id = $1 AND status = $3', [id, 'settled', 'prepare']);
    return { id };
  });
  // The S2S SALE's two database writes alone, replayed with fresh ids through the gateway's store (bench/sale-writes.ts).
  app.post('/sale-writes', async () => ({ status: await saleWrites.replay!() }));
  // The load generator switches the gateway's ledger off and on around the baseline SALE (issue 27).
  app.post<{ Params: { state: string } }>('/ledger/:state', async (req) => {
    ledger(req.params.state === 'on');
    return { ledger: req.params.state };
  });
  // ... and saves 50 platform risk rules (3 with velocity) around the SALE with rules (issue 26), then goes back to
  // the platform's defaults (card-testing rules for live merchants: none screens the bench's sandbox merchant).
  app.post<{ Params: { state: string } }>('/risk/:state', async (req) => {
    await riskRules(req.params.state === 'fifty');
    return { risk: req.params.state };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as { port: number }).port;
}

/**
 * The merchant's callback listener: answers OK, as a merchant does when it took the callback. bench/run.ts runs it
 * in its own process and names it in BENCH_CALLBACK_URL (a merchant's server is not the gateway's); else it runs here.
 */
async function startCallbackListener(): Promise<string> {
  if (process.env.BENCH_CALLBACK_URL) return process.env.BENCH_CALLBACK_URL;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('OK'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/callback`;
}

async function main() {
  const db = await openPostgres({ url, schema, max: 20 });
  // The callback listener is on loopback, a private host a gateway posts to only when the operator allows it.
  const config = { ...loadConfig({}), port: 0, callbackAllowedPrivateHosts: ['127.0.0.1'] };
  const gateway = await assembleGateway({ config, db, keyring: BENCH_KEYRING, logger: createLogger('silent') });
  const address = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  (gateway.ctx as { baseUrl: string }).baseUrl = address;
  const merchant = { id: newId(), key: 'bench-key', password: 'bench-password' };
  await insertMerchant(db, BENCH_KEYRING, { id: merchant.id, name: 'Bench', key: merchant.key, password: merchant.password, sandbox: true });
  await insertMid(db, { id: newId(), merchantId: merchant.id, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
  // A platform fee schedule, so each SALE posts its fee with it (four entries): the ledger's cost as in production.
  const rows = parseFeeRows([{ operation: 'sale', currency: 'USD', percent: '2.9', fixed: '0.30' }]);
  if ('rows' in rows) await insertFeeSchedule(db, { id: newId(), merchantId: null, effectiveFrom: new Date(0), rows: rows.rows, createdBy: null }, new Date());
  const saleWrites: { replay?: () => Promise<string> } = {};
  const barePort = await startBare((on) => { gateway.ctx.ledgerOff = !on; }, async (fifty) => {
    const [current] = await ruleSetsOf(db, [PLATFORM_SCOPE]);
    if (fifty) await saveRuleSet(db, PLATFORM_SCOPE, FIFTY, current?.version ?? 0, null, 'bench', new Date());
    else await db.query('DELETE FROM risk_rule_sets WHERE scope = $1', [PLATFORM_SCOPE]);
    forgetRuleSet(gateway.ctx, PLATFORM_SCOPE);
  }, saleWrites);
  // A second merchant with a notification URL: its sales write a callback with the outcome, which the
  // dispatcher in this process then delivers over HTTP (the only worker started: the loads of the first merchant
  // leave it nothing to do).
  const notified = { id: newId(), key: 'bench-key-callbacks', password: 'bench-password' };
  await insertMerchant(db, BENCH_KEYRING, { id: notified.id, name: 'Bench with callbacks', key: notified.key, password: notified.password, sandbox: true, notificationUrl: await startCallbackListener() });
  await insertMid(db, { id: newId(), merchantId: notified.id, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
  const order = { number: 'bench-order', amount: '10.00', currency: 'USD', description: 'Bench order' };
  const sessionBody = {
    merchant_key: merchant.key, operation: 'purchase', methods: ['card'], order,
    success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
    customer: { name: 'John Doe', email: 'success@gmail.com' },
    hash: checkoutHash(checkout.session(order), merchant.password),
  };
  const created = await gateway.app.inject({ method: 'POST', url: '/api/v1/session', payload: sessionBody });
  if (created.statusCode !== 200) throw new Error(`session creation failed: ${created.body}`);
  const [row] = await db.query<{ id: string }>('SELECT id FROM payments LIMIT 1');
  const paymentId = row?.id ?? '';
  const statusBody = { merchant_key: merchant.key, payment_id: paymentId, hash: checkoutHash(checkout.byPaymentId(paymentId), merchant.password) };
  const saleForm = new URLSearchParams({
    action: 'SALE', client_key: merchant.key, order_id: 'bench-sale', order_amount: '1.99', order_currency: 'USD', order_description: 'Bench sale',
    card_number: '4111111111111111', card_exp_month: '01', card_exp_year: '2038', card_cvv2: '123',
    payer_first_name: 'John', payer_last_name: 'Doe', payer_email: 'doe@example.com', payer_phone: '199999999', payer_ip: '123.123.123.123',
    term_url_3ds: 'https://shop.example/return',
    hash: s2sHash(s2sCard.f1('doe@example.com', merchant.password, card6_4('4111111111111111'))),
  }).toString();
  const saleFormWithCallback = new URLSearchParams({ ...Object.fromEntries(new URLSearchParams(saleForm)), client_key: notified.key }).toString();
  gateway.dispatcher.start();
  const recording = recordSaleWrites();
  const sale = await gateway.app.inject({ method: 'POST', url: '/post', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: saleForm });
  if (JSON.parse(sale.body).result !== 'SUCCESS') throw new Error(`S2S SALE failed: ${sale.body}`);
  saleWrites.replay = saleWritesReplay(db, recording.stop());
  if ((await saleWrites.replay()) !== 'settled') throw new Error('the replayed SALE writes did not settle a payment');
  process.stdout.write(`${JSON.stringify({ gateway: address, bare: `http://127.0.0.1:${barePort}`, sessionBody, statusBody, saleForm, saleFormWithCallback, merchant, schema })}\n`);
  const shutdown = async () => {
    await gateway.dispatcher.stop();
    await gateway.close();
    await db.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.stdin.on('end', () => void shutdown());
  process.stdin.resume();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
