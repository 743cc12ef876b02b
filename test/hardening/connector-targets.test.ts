/**
 * Issue 25, item 4: connector endpoints (where full card data goes). Internal targets are refused when a MID
 * is saved and again at call time after DNS (nothing reaches them, the payment is declined); https only in
 * production; Adyen MIDs name Adyen's hosts; the endpoints and credentials of a live MID are an admin's, and
 * the change is audited. CONNECTOR_ALLOWED_PRIVATE_HOSTS lets named internal hosts through. Both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { operatorWithRole, fieldErrors, D3_FORBIDDEN, type AdminCall } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import type { Resolver } from '../../src/workers/callback-http.ts';

const PRIVATE = 'This URL must point to a public address (an operator allows an internal host with CONNECTOR_ALLOWED_PRIVATE_HOSTS).';
const CREDENTIALS = { client_key: 'upstream-key', password: 'upstream-password' };

/** An acquirer peer on loopback that counts what reaches it. */
async function startPeer(): Promise<{ port: number; hits: string[]; server: Server }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, hits, server };
}

const fakeDns = (table: Record<string, string>): Resolver => async (hostname) => {
  const address = table[hostname];
  if (!address) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

for (const { kind, skip } of await storeKinds()) {
  describe(`Connector endpoints (${kind})`, { skip }, () => {
    let t: TestGateway;
    let peer: Awaited<ReturnType<typeof startPeer>>;
    let admin: AdminCall;
    let operator: AdminCall;
    before(async () => {
      peer = await startPeer();
      t = await startTestGateway(kind, { connectorAllowedPrivateHosts: ['acquirer.onprem.test'], connectorResolver: fakeDns({ 'rebind.example.com': '127.0.0.1', 'acquirer.onprem.test': '127.0.0.1' }) });
      admin = (await operatorWithRole(t, 'admin')).call;
      operator = (await operatorWithRole(t, 'operator')).call;
    });
    after(async () => {
      await t?.close();
      await new Promise((r) => peer?.server.close(r));
    });

    const createMid = (call: AdminCall, merchantId: string, body: Record<string, unknown>) => call('POST', `/admin/v1/merchants/${merchantId}/mids`, body);

    it('refuses internal endpoints when a MID is saved, naming the setting', async () => {
      const m = await t.addMerchant();
      for (const endpoint of ['http://127.0.0.1:9/post', 'http://[::1]/post', 'http://169.254.169.254/latest', 'http://10.0.0.7/post', 'http://localhost/post', 'http://[::ffff:0:7f00:1]/post']) {
        const res = await createMid(admin, m.id, { connector: 'akurateco', settings: { endpoint }, credentials: CREDENTIALS });
        assert.equal(res.status, 400, endpoint);
        assert.deepEqual(fieldErrors(res.body), [`settings.endpoint: ${PRIVATE}`], endpoint);
      }
      const apm = await createMid(admin, m.id, { connector: 'akurateco', settings: { endpoint: 'https://api.upstream.example/post', apmEndpoint: 'http://192.168.1.1/post' }, credentials: CREDENTIALS });
      assert.deepEqual(fieldErrors(apm.body), [`settings.apmEndpoint: ${PRIVATE}`]);
      const ok = await createMid(admin, m.id, { connector: 'akurateco', settings: { endpoint: 'https://api.upstream.example/post' }, credentials: CREDENTIALS });
      assert.equal(ok.status, 201, ok.text);
      const allowed = await createMid(admin, m.id, { connector: 'akurateco', settings: { endpoint: 'http://acquirer.onprem.test:8080/post' }, credentials: CREDENTIALS });
      assert.equal(allowed.status, 201, 'a host named in CONNECTOR_ALLOWED_PRIVATE_HOSTS');
    });

    it('holds an Adyen MID to Adyen\'s hosts', async () => {
      const m = await t.addMerchant();
      const adyen = (baseUrl: string) => createMid(admin, m.id, { connector: 'adyen', settings: { baseUrl, merchantAccount: 'Shop', environment: 'test' } });
      assert.deepEqual(fieldErrors((await adyen('https://checkout.evil.example/v71')).body), ['settings.baseUrl: This host is not one of the connector\'s hosts.']);
      assert.equal((await adyen('https://checkout-test.adyen.com/v71')).status, 201);
      assert.equal((await adyen('https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout/v71')).status, 201);
    });

    it('sends nothing to an endpoint that is or resolves to an internal address at call time, and declines', async () => {
      for (const host of ['127.0.0.1', 'rebind.example.com']) {
        // Written straight to the store (a MID saved before the rule, or a name that rebinds after the save).
        const m: TestMerchant = await t.addMerchant({ sandbox: false, mids: [{ paymentMode: 'SMS/DMS', connector: 'akurateco', settings: { endpoint: `http://${host}:${peer.port}/post` }, credentials: CREDENTIALS }] });
        const res = await sale(t, {}, m);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.result, 'DECLINED', `${host}: ${res.text}`);
      }
      assert.deepEqual(peer.hits, [], 'the peer received nothing');
    });

    it('reaches an allowed internal host at call time', async () => {
      const m = await t.addMerchant({ sandbox: false, mids: [{ paymentMode: 'SMS/DMS', connector: 'akurateco', settings: { endpoint: `http://acquirer.onprem.test:${peer.port}/post` }, credentials: CREDENTIALS }] });
      await sale(t, {}, m);
      assert.equal(peer.hits.length > 0, true, 'the allowed host was called');
      peer.hits.length = 0;
    });

    it('lets only an admin change the endpoint or credentials of a live MID, and audits it', async () => {
      const m = await t.addMerchant({ sandbox: false, mids: [] });
      const refused = await createMid(operator, m.id, { connector: 'akurateco', settings: { endpoint: 'https://api.upstream.example/post' }, credentials: CREDENTIALS });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.error_message, D3_FORBIDDEN.error_message);
      const created = await createMid(admin, m.id, { connector: 'akurateco', settings: { endpoint: 'https://api.upstream.example/post' }, credentials: CREDENTIALS });
      assert.equal(created.status, 201, created.text);
      const path = `/admin/v1/merchants/${m.id}/mids/${created.body.id}`;
      for (const change of [{ settings: { endpoint: 'https://attacker.example/post' } }, { credentials: { password: 'other' } }]) {
        const res = await operator('PATCH', path, change);
        assert.equal(res.status, 403, JSON.stringify(change));
      }
      assert.equal((await operator('PATCH', path, { descriptor: 'SHOP' })).status, 200, 'other fields stay the operator\'s');
      const byAdmin = await admin('PATCH', path, { settings: { endpoint: 'https://api2.upstream.example/post' } });
      assert.equal(byAdmin.status, 200, byAdmin.text);
      const rows = await t.store.db.query<{ details: Record<string, unknown> }>("SELECT details FROM audit_log WHERE object_id = $1 AND action = 'mid.update' ORDER BY at", [created.body.id]);
      assert.deepEqual(rows.map((r) => r.details.live_mid_secured_fields ?? null), [null, ['settings.endpoint']]);
      // A sandbox merchant's test MID stays the operator's.
      const sandbox = await t.addMerchant();
      assert.equal((await createMid(operator, sandbox.id, { connector: 'akurateco', settings: { endpoint: 'https://api.upstream.example/post' }, credentials: CREDENTIALS })).status, 201);
    });
  });

  describe(`Connector endpoints in production (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(kind, { production: true, connectorAllowedPrivateHosts: [] });
    });
    after(async () => t?.close());

    it('refuses a plain http endpoint', async () => {
      const admin = (await operatorWithRole(t, 'admin')).call;
      const m = await t.addMerchant({ sandbox: false, mids: [] });
      const res = await admin('POST', `/admin/v1/merchants/${m.id}/mids`, { connector: 'akurateco', settings: { endpoint: 'http://api.upstream.example/post' }, credentials: CREDENTIALS });
      assert.deepEqual(fieldErrors(res.body), ['settings.endpoint: This URL must use https in production.']);
    });
  });
}
