/**
 * `npm run bench:page`: the hosted Checkout page of a card-only session, as a payer's browser gets it.
 * Prints its transfer size (HTML + CSS + JS, raw and gzip-compressed as an HTTP compressor would send them;
 * the target is 30 KB compressed) and the time to first byte of `GET /checkout/{id}` over keep-alive, sequential
 * requests after a warm-up (p50 target < 5 ms), with the embedded store (PGlite) or PostgreSQL (BENCH_PAGE_STORE).
 * BENCH_PAGE_REQUESTS (default 2000) sets the number of timed requests.
 */
import http from 'node:http';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { startTestGateway } from '../test/support/gateway.ts';
import { checkoutHash } from '../test/support/merchant.ts';
import { ASSETS } from '../src/web/assets.ts';

const requests = Number(process.env.BENCH_PAGE_REQUESTS ?? 2000);
const kind = process.env.BENCH_PAGE_STORE === 'postgres' ? 'postgres' : 'pglite';

const t = await startTestGateway(kind);
const order = { number: `bench-page-${Date.now()}`, amount: '25.00', currency: 'EUR', description: 'Bench order' };
const opened = await t.postJson('/api/v1/session', {
  merchant_key: t.merchant.key, operation: 'purchase', methods: ['card'], order,
  success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
  customer: { name: 'Jane Roe', email: 'jane@example.com' },
  hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
});
const url = new URL(opened.body.redirect_url as string);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(path: string): Promise<{ ttfbMs: number; body: Buffer; status: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get({ host: url.hostname, port: url.port, path, agent, headers: { 'accept-language': 'en' } }, (res) => {
      const ttfbMs = Number(process.hrtime.bigint() - started) / 1e6;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ ttfbMs, body: Buffer.concat(chunks), status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
  });
}

const page = await get(url.pathname);
if (page.status !== 200) throw new Error(`page answered ${page.status}`);
const parts = [
  { name: 'HTML', body: page.body },
  { name: 'checkout.css', body: ASSETS['checkout.css']!.body },
  { name: 'checkout.js', body: ASSETS['checkout.js']!.body },
];
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
let raw = 0;
let gz = 0;
let br = 0;
console.log(`Hosted Checkout page, card-only session (${kind})`);
for (const p of parts) {
  const g = gzipSync(p.body).length;
  const b = brotliCompressSync(p.body).length;
  raw += p.body.length;
  gz += g;
  br += b;
  console.log(`  ${p.name.padEnd(13)} raw ${kb(p.body.length).padStart(8)}  gzip ${kb(g).padStart(7)}  brotli ${kb(b).padStart(7)}`);
}
console.log(`  ${'total'.padEnd(13)} raw ${kb(raw).padStart(8)}  gzip ${kb(gz).padStart(7)}  brotli ${kb(br).padStart(7)}  (target <= 30 KB compressed)`);

for (let i = 0; i < 200; i++) await get(url.pathname);
const times: number[] = [];
for (let i = 0; i < requests; i++) times.push((await get(url.pathname)).ttfbMs);
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
console.log(`TTFB of GET /checkout/{id} over ${requests} sequential keep-alive requests: p50 ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms (target p50 < 5 ms)`);

agent.destroy();
await t.close();
