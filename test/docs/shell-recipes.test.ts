/**
 * The docs' shell recipes run as written (bash, curl, md5sum, sha1sum, rev) against a real gateway with the demo
 * merchant of docs/merchants/first-steps.md, on both stores: the helpers of its step 4, then each channel page's
 * recipe. The shell-computed hashes are accepted, the Checkout session opens, the S2S CARD SALE settles, the S2S APM
 * SALE sends the payer on, a chain starts on a schedule and is charged, and the sandbox test clock moves.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { insertMerchant, insertMid } from '../../src/store/merchants-repo.ts';
import { newId } from '../../src/domain/ids.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const shellBlocksOf = (page: string) =>
  [...readFileSync(path.join(root, 'docs/merchants', page), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const helpers = shellBlocksOf('first-steps.md').find((b) => b.includes('checkout_hash()'));
/** The block of `page` that holds `marker`. */
const block = (page: string, marker: string) => shellBlocksOf(page).find((b) => b.includes(marker));

function toolsMissing(): string | undefined {
  for (const tool of ['/usr/bin/curl', '/usr/bin/md5sum', '/usr/bin/sha1sum', '/usr/bin/rev']) {
    try {
      accessSync(tool, constants.X_OK);
    } catch {
      return `${tool} missing; the docs' shell recipes are not run`;
    }
  }
  return undefined;
}

for (const { kind, skip } of await storeKinds()) {
  describe(`docs/merchants shell recipes (${kind})`, { skip: skip || toolsMissing() || false }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind);
      const credentials = Object.fromEntries([...helpers!.matchAll(/(KEY|PASSWORD)=([^;\s]+)/g)].map((m) => [m[1]!, m[2]!]));
      await gw.store.db.transaction(async (tx) => {
        const id = newId();
        await insertMerchant(tx, gw.keyring, { id, name: 'Demo Shop', key: credentials.KEY!, password: credentials.PASSWORD!, sandbox: true });
        await insertMid(tx, { id: newId(), merchantId: id, name: 'Sandbox card MID', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
      });
    });
    after(async () => gw?.close());

    /** The page's helpers, the gateway's address in place of localhost:8080, then one recipe (async: the gateway runs in this process). */
    const run = async (recipe: string) => (await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', `${helpers}\nBASE=${gw.baseUrl}\n${recipe}`], { encoding: 'utf8', timeout: 30_000 })).stdout;

    it('opens a Checkout session with the shell-computed hash', async () => {
      const out = JSON.parse(await run(block('checkout.md', '/api/v1/session')!));
      assert.match(out.redirect_url, /\/checkout\//, JSON.stringify(out));
    });

    it('settles an S2S CARD SALE signed with the shell Formula 1', async () => {
      const out = JSON.parse(await run(block('s2s-card.md', 'action=SALE -d client_key=$KEY -d order_id')!));
      assert.deepEqual([out.result, out.status], ['SUCCESS', 'SETTLED'], JSON.stringify(out));
    });

    it('sends an S2S APM SALE signed with the shell recipe to the provider page', async () => {
      const out = JSON.parse(await run(block('s2s-apm.md', '/apm/post')!));
      assert.equal(out.result, 'REDIRECT', JSON.stringify(out));
    });

    it('creates a schedule, starts a chain on it and charges the chain with the shell-computed hashes', async () => {
      const recipe = `${block('recurring.md', 'CREATE_SCHEDULE')}\n${block('recurring.md', 'RECURRING_SALE')}`;
      const [first, charge] = (await run(recipe)).trim().split(/(?<=})\s*(?={)/).map((a) => JSON.parse(a));
      assert.deepEqual([first.action, first.result, first.status], ['SALE', 'SUCCESS', 'SETTLED'], JSON.stringify(first));
      assert.ok(first.recurring_token && first.schedule_id, JSON.stringify(first));
      assert.deepEqual([charge.action, charge.result, charge.status], ['RECURRING_SALE', 'SUCCESS', 'SETTLED'], JSON.stringify(charge));
    });

    it('reads and advances the sandbox test clock with the shell-computed hashes', async () => {
      // Two answers, one per curl: the clock read, then the clock 30 days ahead.
      const answers = (await run(block('sandbox.md', '/sandbox/test-clock/advance')!)).split(/(?<=})(?={)/).map((a) => JSON.parse(a));
      assert.deepEqual(answers.map((a) => [a.merchant_key, a.offset_seconds]), [['demo-key', 0], ['demo-key', 2592000]], JSON.stringify(answers));
    });
  });
}
