/**
 * Native 3-D Secure 2 with the `adyen` connector, in a real browser: Adyen (a stand-in on loopback that answers
 * with the description's native example, its tokens naming an ACS of ours, and validates every request against
 * CheckoutService-v71.json) asks for the device fingerprint, then for a challenge. Our page runs both: the 3DS
 * Method in a hidden frame, the ACS's challenge in a visible one; the ACS tells the page the transaction status
 * by postMessage; the page posts each result back and we send it with /payments/details. The payer ends at the
 * merchant's term_url_3ds.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { sale, startListener, type Listener } from '../s2s-card/support.ts';
import { ourPayment, waitUntil } from './support.ts';
import { adyenSpec, adyenUnavailable, example, specPath } from './adyen-support.ts';

type Json = Record<string, any>;
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');
const unb64 = (s: string) => JSON.parse(Buffer.from(s, 'base64').toString('utf8')) as Json;

interface Stub { url: string; requests: { path: string; body: Json; errors: string[] }[]; close(): Promise<void> }

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closer = (server: Server) => () => new Promise<void>((resolve) => {
  server.closeAllConnections();
  server.close(() => resolve());
});

function readBody(req: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/**
 * An issuer's ACS: /method is the 3DS Method page (it only has to load); /challenge takes the CReq and shows a
 * code form whose answer is told to the parent page by postMessage, as a 3DS server's notification page does.
 */
async function startAcs(): Promise<Stub & { creqs: Json[]; methodData: Json[] }> {
  const creqs: Json[] = [];
  const methodData: Json[] = [];
  const server = createServer(async (req, res) => {
    const form = new URLSearchParams(await readBody(req));
    if (req.url === '/method') {
      methodData.push(JSON.parse(Buffer.from(form.get('threeDSMethodData') ?? '', 'base64url').toString()));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>method</title>');
      return;
    }
    const creq = JSON.parse(Buffer.from(form.get('creq') ?? '', 'base64url').toString()) as Json;
    creqs.push(creq);
    const cres = Buffer.from(JSON.stringify({ acsTransID: creq.acsTransID, messageType: 'CRes', transStatus: 'Y' })).toString('base64url');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>ACS</title><label>Code <input id="otp"></label>
<button id="confirm" onclick="parent.postMessage('${cres}', '*')">Confirm</button>`);
  });
  const url = await listen(server);
  return { url, requests: [], creqs, methodData, close: closer(server) };
}

/** Adyen: /payments asks for the fingerprint, the first /payments/details for a challenge, the second authorises. */
async function startAdyen(acs: string): Promise<Stub> {
  const requests: Stub['requests'] = [];
  const identify = structuredClone(example('post-payments-card-3d-secure-2-web-200'));
  identify.action.token = b64({ threeDSMethodNotificationURL: 'https://checkoutshopper-test.adyen.com/notify', threeDSMethodUrl: `${acs}/method`, threeDSServerTransID: 'srv-9' });
  const challenge = structuredClone(example('post-payments-card-3d-secure-2-web-200'));
  Object.assign(challenge, { resultCode: 'ChallengeShopper' });
  Object.assign(challenge.action, { subtype: 'challenge', token: b64({ acsTransID: 'acs-9', acsURL: `${acs}/challenge`, messageVersion: '2.2.0', threeDSServerTransID: 'srv-9' }) });
  const server = createServer(async (req, res) => {
    const url = `http://x${req.url}`;
    const body = JSON.parse(await readBody(req)) as Json;
    requests.push({ path: specPath(url), body, errors: adyenSpec().validate(specPath(url), body) });
    const details = requests.filter((r) => r.path === '/payments/details').length;
    const answer = specPath(url) === '/payments' ? identify : details === 1 ? challenge : example('post-payments-details-00.redirect-200');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  const url = await listen(server);
  return { url, requests, close: closer(server) };
}

const unavailable = browserUnavailable() ?? (adyenUnavailable || undefined);

for (const { kind, skip } of await browserStores()) {
  describe(`adyen native 3-D Secure 2 in a browser (${kind})`, { skip: skip || unavailable || false }, () => {
    let acs: Awaited<ReturnType<typeof startAcs>>;
    let adyen: Stub;
    let gw: TestGateway;
    let callbacks: Listener;
    let shop: { url: string; returns: string[]; close(): Promise<void> };
    let browser: Browser;
    before(async () => {
      acs = await startAcs();
      adyen = await startAdyen(acs.url);
      callbacks = await startListener('OK');
      const returns: string[] = [];
      const server = createServer((req, res) => {
        returns.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Shop</title><p id="returned">Thank you</p>');
      });
      shop = { url: await listen(server), returns, close: closer(server) };
      gw = await startTestGateway(kind, {
        workers: true, notificationUrl: callbacks.url, sandbox: false,
        mids: [{ id: crypto.randomUUID(), paymentMode: 'SMS/DMS', connector: 'adyen', settings: { baseUrl: adyen.url, merchantAccount: 'PortcullisECOM', environment: 'test', nativeThreeDS: true }, credentials: { apiKey: 'k', hmacKey: 'AA' } }],
      });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await gw?.close();
      await Promise.all([acs?.close(), adyen?.close(), callbacks?.close(), shop?.close()]);
    });

    it('fingerprint, then challenge, on our page; Adyen gets both results; the payer ends at term_url_3ds', async () => {
      const res = await sale(gw, { order_amount: '10.00', term_url_3ds: `${shop.url}/return` });
      assert.equal(res.body.result, 'REDIRECT', res.text);
      const id = res.body.trans_id as string;
      const page = await (await browser.newContext()).newPage();
      await page.goto(res.body.redirect_url);
      // The 3DS Method ran in the hidden frame; the challenge is shown in the visible one.
      const frame = page.frameLocator('#threeds2-frame');
      await frame.locator('#otp').fill('1234', { timeout: 20_000 });
      await frame.locator('#confirm').click();
      await page.waitForURL(`${shop.url}/return`, { timeout: 20_000 });

      assert.deepEqual(acs.methodData, [{ threeDSServerTransID: 'srv-9', threeDSMethodNotificationURL: 'https://checkoutshopper-test.adyen.com/notify' }]);
      assert.deepEqual(acs.creqs, [{ threeDSServerTransID: 'srv-9', acsTransID: 'acs-9', messageVersion: '2.2.0', messageType: 'CReq', challengeWindowSize: '05' }]);
      assert.deepEqual(adyen.requests.map((r) => r.path), ['/payments', '/payments/details', '/payments/details']);
      for (const r of adyen.requests) assert.deepEqual(r.errors, [], `${r.path} matches the description`);
      assert.deepEqual(unb64(adyen.requests[1]!.body.details['threeds2.fingerprint']), { threeDSCompInd: 'Y' });
      assert.equal(adyen.requests[1]!.body.paymentData, example('post-payments-card-3d-secure-2-web-200').action.paymentData);
      assert.equal(unb64(adyen.requests[2]!.body.details.threeDSResult).transStatus, 'Y');

      const p = await ourPayment(gw, id);
      assert.equal(p.status, 'settled');
      const cb = await waitUntil('the SALE callback', async () => callbacks.received.find((c) => c.fields.trans_id === id)?.fields);
      assert.equal(cb.result, 'SUCCESS');
    });
  });
}
