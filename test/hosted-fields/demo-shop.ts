/**
 * A merchant's shop using the hosted payment fields, as the docs describe the integration (wire-reference 7.4),
 * on its own origin (a node:http server on another port):
 * - GET /           the checkout page: loads /sdk/hosted-fields.js from the gateway, embeds the three fields,
 *                   asks its backend for a session token, and on "Pay" calls collectIframesData(), then its
 *                   backend's /pay; a "redirect" answer is followed with a POST form of redirect_params;
 * - POST /token     backend: POST /api/v1/session/token (signed with the session formula);
 * - POST /pay       backend: POST /api/v1/processing/purchase/card with header Token;
 * - GET /return     the return_url the payer comes back to after 3-D Secure.
 * Every request body the shop receives is recorded, so a test can check that no card data ever reach it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';

export interface DemoShop {
  origin: string;
  /** Bodies (and query strings) of every request the shop received, in order. */
  received: { method: string; url: string; body: string }[];
  /** The orders the shop opened, by token. */
  orders: Map<string, { number: string; amount: string; currency: string; description: string }>;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

/** The shop's checkout page. Inline script is the merchant's business; the gateway's frames need none. */
function checkoutPage(gateway: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Demo shop checkout</title>
<script src="${gateway}/sdk/hosted-fields.js"></script>
<style>
  .box { border: 1px solid #999; height: 40px; width: 320px; margin: 6px 0; padding: 0 8px; }
  .box.invalid { border-color: #c00; }
</style></head>
<body>
<h1>Demo shop</h1>
<label>Name on card <input id="name" value="Jane Roe" autocomplete="cc-name"></label>
<div id="card" class="box"></div>
<div id="expiry" class="box"></div>
<div id="cvv" class="box"></div>
<button id="pay" type="button" disabled>Pay</button>
<p id="result"></p>
<script>
  window.hfEvents = [];
  window.submitResults = [];
  var hf = new HostedFields();
  window.hf = hf;
  function wire(field) {
    ['input', 'focus', 'blur'].forEach(function (kind) {
      hf[field + 'On'][kind] = function (e) {
        window.hfEvents.push({ field: field, event: kind, valid: e.valid, empty: e.empty });
        if (kind === 'input') document.getElementById(field).classList.toggle('invalid', !e.valid);
      };
    });
  }
  wire('card'); wire('expiry'); wire('cvv');
  hf.onReady = function () { document.getElementById('pay').disabled = false; };
  hf.onSubmitResult = function (data) {
    window.submitResults.push(data);
    if (data.result !== 'success') {
      document.getElementById('result').textContent = 'error: ' + data.message;
      return;
    }
    fetch('/pay', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: window.token, name: document.getElementById('name').value }) })
      .then(function (r) { return r.json(); })
      .then(function (answer) {
        window.payAnswer = answer;
        if (answer.result === 'redirect') {
          var form = document.createElement('form');
          form.method = answer.redirect_method || 'POST';
          form.action = answer.redirect_url;
          Object.keys(answer.redirect_params || {}).forEach(function (k) {
            var input = document.createElement('input');
            input.type = 'hidden'; input.name = k; input.value = answer.redirect_params[k];
            form.appendChild(input);
          });
          document.body.appendChild(form);
          form.submit();
          return;
        }
        document.getElementById('result').textContent = answer.result;
      });
  };
  document.getElementById('pay').addEventListener('click', function () { hf.collectIframesData(); });
  fetch('/token' + location.search, { method: 'POST' })
    .then(function (r) { return r.json(); })
    .then(function (body) {
      window.token = body.token;
      hf.init({
        sessionToken: body.token,
        fields: {
          card: { id: 'card', placeholder: 'Card number' },
          expiry: { id: 'expiry', placeholder: 'MM/YY' },
          cvv: { id: 'cvv', placeholder: 'CVV' }
        },
        style: { input: { 'font-size': '16px', color: '#112233', background: 'url(https://evil.example/x.png)' }, '::placeholder': { color: '#999999' } }
      });
    });
</script>
</body></html>`;
}

export async function startDemoShop(t: TestGateway): Promise<DemoShop> {
  const shop: DemoShop = { origin: '', received: [], orders: new Map(), close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    shop.received.push({ method: req.method ?? '', url: req.url ?? '', body });
    const url = new URL(req.url ?? '/', shop.origin);
    const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(checkoutPage(t.baseUrl));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      const order = { number: `shop-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, amount: url.searchParams.get('amount') ?? '19.99', currency: 'EUR', description: 'Demo shop order' };
      const answer = await t.postJson('/api/v1/session/token', {
        operation: 'purchase',
        merchant_key: t.merchant.key,
        order,
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
        return_url: `${shop.origin}/return`,
      });
      if (answer.status === 200) shop.orders.set(answer.body.token, order);
      json(answer.status, answer.body);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/pay') {
      const { token, name } = JSON.parse(body) as { token: string; name: string };
      const answer = await t.postJson('/api/v1/processing/purchase/card', {
        name,
        with_hosted_fields: true,
        email: 'success@gmail.com',
        // The payer's browser Accept header, as seen by the shop, forwarded as the docs ask.
        browser_info: { accept_headers: req.headers.accept ?? '*/*', user_agent: req.headers['user-agent'] ?? '' },
      }, { token });
      json(answer.status, answer.body);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/return') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Back at the shop</title><p id="returned">Thank you</p>');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // localhost vs the gateway's 127.0.0.1: another host and another port, so certainly another origin.
  shop.origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  shop.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return shop;
}
