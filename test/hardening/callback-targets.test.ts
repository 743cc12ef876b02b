/**
 * Issue 12, item 5 (SSRF): internal callback targets refused when a merchant names them (D3 error on the
 * field) and again at delivery, after DNS, on the address actually connected to. Both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { sale } from '../s2s-card/support.ts';
import { callbackTargetPolicy, callbackUrlProblem, PRIVATE_TARGET_MESSAGE } from '../../src/domain/callback-targets.ts';
import type { Resolver } from '../../src/workers/callback-http.ts';

const INTERNAL = [
  'http://127.0.0.1/cb', 'http://localhost/cb', 'http://127.1/cb', 'http://2130706433/cb', 'http://0x7f000001/cb', 'http://0.0.0.0/cb',
  'http://[::ffff:127.0.0.1]/cb', 'http://169.254.169.254/latest/meta-data', 'http://metadata.google.internal/computeMetadata/v1/',
  'http://10.1.2.3/cb', 'http://172.16.0.1/cb', 'http://172.31.255.1/cb', 'http://192.168.0.10/cb', 'http://100.64.0.1/cb',
  'http://[fd00::1]/cb', 'http://[fe80::1]/cb', 'http://[::1]/cb', 'http://intranet/cb', 'http://0177.0.0.1/cb', 'http://shop.localhost/cb',
];
const PUBLIC = ['https://shop.example.com/cb', 'http://8.8.8.8/cb', 'http://[2001:4860:4860::8888]/cb', 'https://172.32.0.1/cb'];

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('callbackUrlProblem', () => {
  for (const url of INTERNAL) it(`refuses ${url}`, () => assert.equal(callbackUrlProblem(url), PRIVATE_TARGET_MESSAGE));
  for (const url of PUBLIC) it(`accepts ${url}`, () => assert.equal(callbackUrlProblem(url), undefined));
  it('accepts internal hosts the operator allows, and only those', () => {
    const policy = callbackTargetPolicy(['10.0.0.5', 'callbacks.onprem.lan', '[::1]']);
    assert.equal(callbackUrlProblem('http://10.0.0.5:8443/cb', policy), undefined);
    assert.equal(callbackUrlProblem('http://CALLBACKS.onprem.lan./cb', policy), undefined);
    assert.equal(callbackUrlProblem('http://[::1]/cb', policy), undefined);
    assert.equal(callbackUrlProblem('http://10.0.0.6/cb', policy), PRIVATE_TARGET_MESSAGE);
  });
});

/** DNS as the tests want it: names of the example zone resolve where the table says. */
const fakeDns = (table: Record<string, string>): Resolver => async (hostname) => {
  const address = table[hostname];
  if (!address) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

for (const { kind, skip } of kinds) {
  describe(`Callback targets (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let port: string;
    before(async () => {
      listener = await startListener();
      port = new URL(listener.url).port;
      t = await startTestGateway(kind, {
        workers: true,
        allowedPrivateHosts: ['callbacks.onprem.test'],
        resolver: fakeDns({ 'rebind.example.com': '127.0.0.1', 'callbacks.onprem.test': '127.0.0.1', 'mapped.example.com': '::ffff:127.0.0.1' }),
      });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    it('refuses every internal spelling of callback_url at request time, naming the field', async () => {
      for (const url of INTERNAL) {
        const res = await sale(t, { callback_url: url });
        assert.equal(res.status, 400, url);
        assert.deepEqual(res.body.errors, [{ error_code: '100000', error_message: `callback_url: ${PRIVATE_TARGET_MESSAGE}` }], url);
        assert.equal(res.body.result, 'ERROR');
      }
      const count = await t.store.db.query('SELECT count(*)::int AS n FROM payments');
      assert.equal(count[0]?.n, 0, 'no payment was created');
    });

    it('refuses at delivery a public name that resolves to an internal address, and posts nothing', async () => {
      for (const host of ['rebind.example.com', 'mapped.example.com']) {
        const res = await sale(t, { callback_url: `http://${host}:${port}/cb` });
        assert.equal(res.status, 200, res.text);
        const id = res.body.trans_id as string;
        const attempt = await waitForAttempt(t, id);
        assert.equal(attempt.outcome, 'network_error');
        assert.match(attempt.error ?? '', /refused/);
      }
      assert.equal(listener.received.length, 0, 'the listener received nothing');
    });

    it('delivers to an allowed internal name, connecting to the address the check saw', async () => {
      const res = await sale(t, { callback_url: `http://callbacks.onprem.test:${port}/cb` });
      assert.equal(res.status, 200, res.text);
      const [got] = await listener.waitForMatching((c) => c.fields.trans_id === res.body.trans_id, 1, 15_000);
      assert.equal(got?.headers.host, `callbacks.onprem.test:${port}`);
    });
  });
}

async function waitForAttempt(t: TestGateway, paymentId: string): Promise<{ outcome: string; error: string | null }> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const rows = await t.store.db.query<{ outcome: string; error: string | null }>(
      'SELECT a.outcome, a.error FROM callback_attempts a JOIN callbacks c ON c.id = a.callback_id WHERE c.payment_id = $1', [paymentId]);
    if (rows[0]) return rows[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no delivery attempt for ${paymentId}`);
}
