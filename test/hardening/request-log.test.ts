/**
 * The request log (issue 31 item 2): one short line per answered request (`GET /health 200 1 ms`, the query's
 * secrets redacted), not Fastify's two lines each holding the whole request and answer; `npm start` in
 * development writes it at debug, so the default LOG_LEVEL=info leaves requests out.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { createLogger } from '../../src/logger.ts';

function sink(lines: string[]) {
  return new Writable({ write(chunk, _enc, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done(); } });
}

describe('request log lines', () => {
  const gateways: TestGateway[] = [];
  after(() => Promise.all(gateways.map((g) => g.close())));

  it('writes one short line per request at info, its query redacted', async () => {
    const lines: string[] = [];
    const t = await startTestGateway('pglite', { logger: createLogger('info', sink(lines)), logRequests: true });
    gateways.push(t);
    const before = lines.length;
    assert.equal((await fetch(`${t.baseUrl}/health`)).status, 200);
    await fetch(`${t.baseUrl}/post?action=SALE&card_number=4111111111111111&client_key=k`);
    // The line is written once the answer is out, which a busy machine may take a while to get to.
    for (const until = Date.now() + 10_000; lines.length - before < 2 && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50));
    const logged = lines.slice(before).map((l) => JSON.parse(l) as { level: number; msg: string; reqId?: string });
    assert.equal(logged.length, 2, lines.slice(before).join('\n'));
    assert.match(logged[0]!.msg, /^GET \/health 200 \d+ ms$/);
    assert.match(logged[1]!.msg, /^GET \/post\?action=SALE&card_number=\[redacted\]&client_key=\[redacted\] 4\d\d \d+ ms$/);
    assert.ok(logged.every((l) => l.level === 30 && typeof l.reqId === 'string'));
    assert.ok(lines.slice(before).every((l) => l.length < 300), 'short lines');
  });

  it('leaves requests out at info when they are logged at debug (npm start in development)', async () => {
    const lines: string[] = [];
    const t = await startTestGateway('pglite', { logger: createLogger('info', sink(lines)), logRequests: true, requestLogLevel: 'debug' });
    gateways.push(t);
    const before = lines.length;
    assert.equal((await fetch(`${t.baseUrl}/health`)).status, 200);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(lines.slice(before), []);
  });
});
