/** The demo merchant created on a fresh store, and the ready-to-paste request printed at start. */
import { randomBytes } from 'node:crypto';
import type { Database } from './store/database.ts';
import { countMerchants, findMerchantByKey, insertMerchant, insertMid } from './store/merchants-repo.ts';
import type { DemoMerchantConfig } from './config.ts';
import type { Keyring } from './store/card-vault.ts';
import { checkout, checkoutHash } from './domain/signatures.ts';
import { newId } from './domain/ids.ts';
import { generateMerchantPassword, merchantPasswordProblem } from './domain/merchant-passwords.ts';

export interface DemoMerchant {
  key: string;
  password: string;
  created: boolean;
}

/**
 * Creates the demo merchant (sandbox, one SMS/DMS sandbox MID) when the store has no merchant yet. A weak
 * DEMO_MERCHANT_PASSWORD stops the start (the merchant password rule, issue 25 item 8).
 */
export async function ensureDemoMerchant(db: Database, keyring: Keyring, demo: DemoMerchantConfig): Promise<DemoMerchant | undefined> {
  const problem = demo.password === undefined ? undefined : merchantPasswordProblem(demo.password);
  if (problem) throw new Error(`DEMO_MERCHANT_PASSWORD: ${problem}`);
  if (demo.key) {
    const existing = await findMerchantByKey(db, keyring, demo.key);
    if (existing) return { key: existing.key, password: existing.password, created: false };
  }
  if ((await countMerchants(db)) > 0) return undefined;
  const key = demo.key ?? randomBytes(16).toString('hex');
  const password = demo.password ?? generateMerchantPassword();
  const merchantId = newId();
  await db.transaction(async (tx) => {
    await insertMerchant(tx, keyring, {
      id: merchantId, name: 'Demo Shop', key, password, sandbox: true, notificationUrl: demo.notificationUrl,
      settings: { callbackFields: ['3ds', 'rrn'], statusFields: ['card', '3ds'] },
    });
    await insertMid(tx, { id: newId(), merchantId, name: 'Sandbox card MID', connector: 'sandbox-card', paymentMode: 'SMS/DMS', cardOnFileSupport: true });
  });
  return { key, password, created: true };
}

/** A curl command that opens a session for the demo merchant, hash included. */
export function sampleSessionRequest(baseUrl: string, merchant: { key: string; password: string }): string {
  const order = { number: 'demo-order-1', amount: '10.00', currency: 'USD', description: 'Demo purchase' };
  const body = {
    merchant_key: merchant.key,
    operation: 'purchase',
    methods: ['card'],
    order,
    // The sandbox merchant inbox on the gateway itself (development): the payer lands where the callback shows.
    cancel_url: `${baseUrl}/sandbox/inbox?result=cancel`,
    success_url: `${baseUrl}/sandbox/inbox?result=success`,
    customer: { name: 'John Doe', email: 'success@gmail.com' },
    hash: checkoutHash(checkout.session(order), merchant.password),
  };
  return `curl -s -X POST ${baseUrl}/api/v1/session -H 'Content-Type: application/json' -d '${JSON.stringify(body)}'`;
}
