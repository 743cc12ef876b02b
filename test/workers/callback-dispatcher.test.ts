import { callbackTargetPolicy } from '../../src/domain/callback-targets.ts';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.ts';
import { CALLBACK_RETRY_DELAYS_MS, URL_BLOCK_RULE, type CallbackProtocol } from '../../src/domain/callback-policy.ts';
import type { FormFields } from '../../src/domain/form-encoding.ts';
import type { Database } from '../../src/store/database.ts';
import {
  claimDue,
  enqueueCallback,
  getCallback,
  getUrlHealth,
  listCallbacks,
  resendCallback,
  unblockUrl,
} from '../../src/store/callbacks-repo.ts';
import { CallbackDispatcher, type CallbackDispatcherOptions } from '../../src/workers/callback-dispatcher.ts';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';

const MINUTE = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// ---- a real receiver on 127.0.0.1 ----

interface Reception {
  path: string;
  callbackId: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

interface Receiver {
  url(path?: string): string;
  receptions: Reception[];
  answer: (r: Reception) => Answer | Promise<Answer>;
  close(): Promise<void>;
}

async function startReceiver(answer: Receiver['answer'] = () => ({ status: 200, body: 'OK' })): Promise<Receiver> {
  const receptions: Reception[] = [];
  const receiver: Receiver = {
    receptions,
    answer,
    url: (path = '/callback') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const reception: Reception = {
        path: req.url ?? '',
        callbackId: req.headers['x-callback-id'] as string | undefined,
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks),
      };
      receptions.push(reception);
      const a = await receiver.answer(reception);
      if (a === 'hang') return;
      res.writeHead(a.status, a.headers).end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return receiver;
}

// ---- fixtures ----

async function addMerchant(db: Database, id: string): Promise<string> {
  await db.query('INSERT INTO merchants (id, name, merchant_key, password) VALUES ($1, $2, $3, $4)', [
    id,
    `Merchant ${id}`,
    `key-${id}`,
    'secret',
  ]);
  return id;
}

const sampleFields = (n = 1): FormFields => ({
  id: `pay-${n}`,
  order_number: `order-${n}`,
  order_amount: '3.01',
  order_status: 'settled',
  type: 'sale',
  status: 'success',
  card: '411111****1111',
  hash: '6d8d440e25bdfc5288616ce567496948d2562852',
});

interface LogEntry {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A real pino logger writing into an array, so tests can read what would be logged. */
function captureLogger() {
  const lines: LogEntry[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as LogEntry);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

for (const { kind, skip } of await storeKinds()) {
  describe(`callback dispatcher (${kind})`, { skip }, () => {
    let store: TestStore;
    let db: Database;
    let clock: ManualClock;
    let receiver: Receiver;
    let log: ReturnType<typeof captureLogger>;

    // One store per kind (opening PGlite is slow); every test starts from empty tables.
    before(async () => {
      store = await openTestStore(kind);
      db = store.db;
    });
    after(() => store.dispose());

    beforeEach(async () => {
      await db.query('TRUNCATE merchants, callbacks, callback_attempts, callback_url_health CASCADE');
      clock = new ManualClock();
      receiver = await startReceiver();
      log = captureLogger();
      await addMerchant(db, 'm1');
      await addMerchant(db, 'm2');
    });

    afterEach(() => receiver.close());

    // A patient POST unless a test times out a hanging receiver on purpose: a loaded CI machine can take seconds.
    const dispatcher = (opts: Partial<CallbackDispatcherOptions> = {}) =>
      new CallbackDispatcher({ db, clock, logger: log.logger, targets: callbackTargetPolicy(['127.0.0.1']), timeoutMs: 10_000, batchSize: 20, pollMs: 10, ...opts });

    type EnqueueOptions = { merchantId?: string; paymentId?: string; url?: string; protocol?: CallbackProtocol; fields?: FormFields };
    const enqueue = (opts: EnqueueOptions = {}) =>
      db.transaction((tx) =>
        enqueueCallback(tx, {
          merchantId: opts.merchantId ?? 'm1',
          // Each callback its own payment unless a test says otherwise: one payment's callbacks go in order.
          paymentId: opts.paymentId ?? `pay-${randomUUID()}`,
          url: opts.url ?? receiver.url(),
          protocol: opts.protocol ?? 'checkout',
          fields: opts.fields ?? sampleFields(),
          now: clock.now(),
        }),
      );

    const callback = async (id: string) => {
      const cb = await getCallback(db, id);
      assert.ok(cb, `callback ${id} exists`);
      return cb;
    };

    describe('delivery', () => {
      it('settles deliveries made at the same time in shared statements, each with its attempt logged', async () => {
        // The dispatcher's ten POSTs in flight each settled in a transaction of four statements and asked the URL's
        // block in one more (issue 24: a SALE with a callback cost several times its payment's statements).
        receiver.answer = () => ({ status: 200, body: 'OK' });
        const ids = await Promise.all(Array.from({ length: 20 }, () => enqueue()));
        let statements = 0;
        let transactions = 0;
        const counted: Database = {
          ...db,
          query: (text, params) => { statements++; return db.query(text, params); },
          transaction: (fn) => { transactions++; return db.transaction((tx) => fn({ query: (text, params) => { statements++; return tx.query(text, params); } })); },
        };
        const summary = await dispatcher({ db: counted, concurrency: 10 }).runOnce();
        assert.equal(summary.delivered, 20);
        // The claim, the URL's block read once for the batch, and one statement per delivery at the most (fewer when
        // settlements meet in a grouped statement: 7 on PostgreSQL here); none in a transaction of its own.
        assert.equal(transactions, 0);
        assert.ok(statements <= 22, `${statements} statements for 20 deliveries`);
        for (const id of ids) {
          const cb = await callback(id);
          assert.equal(cb.status, 'delivered');
          assert.equal(cb.attempts, 1);
        }
        const attempts = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM callback_attempts WHERE callback_id = ANY($1::text[]) AND outcome = 'delivered' AND http_status = 200", [ids]);
        assert.equal(attempts[0]!.n, 20);
      });

      it('goes on to its next POST while a delivery\'s settlement is still being written', async () => {
        receiver.answer = () => ({ status: 200, body: 'OK' });
        await Promise.all([1, 2, 3].map(() => enqueue()));
        const events: string[] = [];
        // Long enough for three local POSTs on a loaded machine; the settlements wait side by side, not in a row.
        const SETTLE_DELAY_MS = 1500;
        const slowSettles: Database = {
          ...db,
          query: async <T,>(text: string, params?: readonly unknown[]): Promise<T[]> => {
            if (!text.includes('INSERT INTO callback_attempts')) return db.query<T>(text, params);
            await new Promise((resolve) => setTimeout(resolve, SETTLE_DELAY_MS));
            const rows = await db.query<T>(text, params);
            events.push('settled');
            return rows;
          },
          // (A settlement written in a transaction of its own, as before, is slowed down the same way.)
          transaction: async (fn) => {
            await new Promise((resolve) => setTimeout(resolve, SETTLE_DELAY_MS));
            const result = await db.transaction(fn);
            events.push('settled');
            return result;
          },
        };
        const answer = receiver.answer;
        receiver.answer = (r) => { events.push('posted'); return answer(r); };
        const summary = await dispatcher({ db: slowSettles, concurrency: 1 }).runOnce();
        assert.equal(summary.delivered, 3, 'every settlement written before the pass ends');
        assert.deepEqual(events.slice(0, 3), ['posted', 'posted', 'posted'], `one worker POSTed all three before the first settlement (${events.join(', ')})`);
      });

      it('delivers the callbacks of one payment one at a time, in the order they were written', async () => {
        receiver.answer = () => ({ status: 200, body: 'OK' });
        const before = receiver.receptions.length;
        const first = await enqueue({ paymentId: 'ordered', fields: { ...sampleFields(), order_status: '3ds' } });
        const second = await enqueue({ paymentId: 'ordered', fields: { ...sampleFields(), order_status: 'settled' } });
        const one = await dispatcher().runOnce();
        assert.equal(one.claimed, 1, 'the later callback waits for the earlier one');
        assert.equal((await callback(first)).status, 'delivered');
        assert.equal((await callback(second)).status, 'pending');
        await dispatcher().runOnce();
        assert.equal((await callback(second)).status, 'delivered');
        const bodies = receiver.receptions.slice(before).map((r) => new URLSearchParams(r.body.toString()).get('order_status'));
        assert.deepEqual(bodies, ['3ds', 'settled']);
      });

      it('checkout: any 2xx is delivered, whatever the body', async () => {
        receiver.answer = () => ({ status: 204 });
        const id = await enqueue({ paymentId: 'pay-1' });
        const summary = await dispatcher().runOnce();
        const expected = { claimed: 1, delivered: 1, retried: 0, failed: 0, deferred: 0, leaseLost: 0, released: 0, errors: 0 };
        assert.deepEqual(summary, expected);
        const cb = await callback(id);
        assert.equal(cb.status, 'delivered');
        assert.equal(cb.attempts, 1);
        assert.deepEqual(cb.deliveredAt, clock.now());
        const [listed] = await listCallbacks(db, { paymentId: 'pay-1' });
        assert.equal(listed?.attemptLog.length, 1);
        assert.equal(listed?.attemptLog[0]?.httpStatus, 204);
        assert.equal(listed?.attemptLog[0]?.outcome, 'delivered');
      });

      it('s2s: 200 with body OK (any case, trimmed) is delivered', async () => {
        receiver.answer = () => ({ status: 200, body: ' ok\n' });
        const id = await enqueue({ protocol: 's2s' });
        await dispatcher().runOnce();
        assert.equal((await callback(id)).status, 'delivered');
      });

      it('s2s: 200 with body ERROR is retried after a minute', async () => {
        receiver.answer = () => ({ status: 200, body: 'ERROR' });
        const id = await enqueue({ protocol: 's2s' });
        const summary = await dispatcher().runOnce();
        assert.equal(summary.retried, 1);
        const cb = await callback(id);
        assert.equal(cb.status, 'pending');
        assert.equal(cb.attempts, 1);
        assert.deepEqual(cb.nextAttemptAt, new Date(clock.now().getTime() + MINUTE));
        assert.equal(cb.lockedUntil, null);
        assert.match(cb.lastError ?? '', /without body OK/);
        const [listed] = await listCallbacks(db, { merchantId: 'm1' });
        assert.equal(listed?.attemptLog[0]?.outcome, 'not_ok_body');
      });

      it('a redirect is not followed and counts as a failure', async () => {
        receiver.answer = (r) =>
          r.path === '/callback' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 };
        const id = await enqueue();
        await dispatcher().runOnce();
        assert.deepEqual(
          receiver.receptions.map((r) => r.path),
          ['/callback'],
        );
        const cb = await callback(id);
        assert.equal(cb.status, 'pending');
        assert.match(cb.lastError ?? '', /302/);
      });

      it('a refused connection is a failure but not a timeout', async () => {
        const closed = await startReceiver();
        const url = closed.url();
        await closed.close();
        const id = await enqueue({ url });
        await dispatcher().runOnce();
        const [listed] = await listCallbacks(db, { merchantId: 'm1' });
        assert.equal(listed?.attemptLog[0]?.outcome, 'network_error');
        assert.equal((await callback(id)).status, 'pending');
        assert.deepEqual((await getUrlHealth(db, url)).timeouts, []);
      });

      it('the receiver gets X-Callback-Id, the content type and the exact form bytes', async () => {
        const fields: FormFields = {
          ...sampleFields(),
          order_description: 'Tickets & a hat',
          rrn: '',
          custom_data: { key: 'välue', list: ['a b', 'c'] },
        };
        const id = await enqueue({ fields });
        await dispatcher().runOnce();
        const [r] = receiver.receptions;
        assert.ok(r);
        assert.match(id, UUID);
        assert.equal(r.callbackId, id);
        assert.equal(r.contentType, 'application/x-www-form-urlencoded; charset=utf-8');
        const expected =
          'id=pay-1&order_number=order-1&order_amount=3.01&order_status=settled&type=sale&status=success' +
          '&card=411111%2A%2A%2A%2A1111&hash=6d8d440e25bdfc5288616ce567496948d2562852' +
          '&order_description=Tickets+%26+a+hat&rrn=' +
          '&custom_data[key]=v%C3%A4lue&custom_data[list][0]=a+b&custom_data[list][1]=c';
        assert.deepEqual(r.body, Buffer.from(expected, 'utf8'));
        assert.ok(!r.body.toString().includes(id), 'the event id is not a form field');
      });

      it('s2s bodies leave out parameters without a value', async () => {
        await enqueue({ protocol: 's2s', fields: { action: 'SALE', result: 'SUCCESS', descriptor: '', hash: 'h' } });
        await dispatcher().runOnce();
        assert.equal(receiver.receptions[0]?.body.toString(), 'action=SALE&result=SUCCESS&hash=h');
      });

      it('logs id, host, status and outcome, never the body or the full URL', async () => {
        receiver.answer = () => ({ status: 500 });
        const id = await enqueue({ url: receiver.url('/cb?token=s3cret') });
        await dispatcher().runOnce();
        const entry = log.lines.find((l) => l.callbackId === id);
        assert.ok(entry);
        assert.equal(entry.status, 500);
        assert.equal(entry.outcome, 'http_error');
        assert.match(String(entry.host), /^127\.0\.0\.1:\d+$/);
        const all = JSON.stringify(log.lines);
        for (const secret of ['411111', '6d8d440e25bdfc52', 's3cret', 'order-1']) {
          assert.ok(!all.includes(secret), `${secret} is not logged`);
        }
      });
    });

    describe('retries', () => {
      it('follow the schedule table, then the callback is failed', async () => {
        receiver.answer = () => ({ status: 500 });
        const d = dispatcher();
        const id = await enqueue();
        assert.equal((await d.runOnce()).retried, 1);
        for (const [i, delay] of CALLBACK_RETRY_DELAYS_MS.entries()) {
          const cb = await callback(id);
          assert.deepEqual(cb.nextAttemptAt, new Date(clock.now().getTime() + delay), `retry ${i + 1}`);
          clock.advance(delay - 1);
          assert.equal((await d.runOnce()).claimed, 0, `retry ${i + 1} not due a millisecond early`);
          clock.advance(1);
          const summary = await d.runOnce();
          assert.equal(summary.claimed, 1);
          assert.equal(summary.failed, i === CALLBACK_RETRY_DELAYS_MS.length - 1 ? 1 : 0);
        }
        const cb = await callback(id);
        assert.equal(cb.status, 'failed');
        assert.equal(cb.attempts, CALLBACK_RETRY_DELAYS_MS.length + 1);
        assert.equal(receiver.receptions.length, 17);
        clock.advance(24 * 60 * MINUTE);
        assert.equal((await d.runOnce()).claimed, 0, 'a failed callback is not sent again by itself');
        assert.ok(log.lines.some((l) => l.msg === 'callback failed after the last retry' && l.callbackId === id));
      });

      it('an admin resend delivers a failed callback again as a new delivery', async () => {
        receiver.answer = () => ({ status: 500 });
        const d = dispatcher();
        const id = await enqueue();
        await d.runOnce();
        for (const delay of CALLBACK_RETRY_DELAYS_MS) {
          clock.advance(delay);
          await d.runOnce();
        }
        assert.equal((await callback(id)).status, 'failed');
        assert.equal(await resendCallback(db, 'no-such-id', clock.now()), false);
        assert.equal(await resendCallback(db, id, clock.now()), true);
        assert.equal(await resendCallback(db, id, clock.now()), false, 'a pending callback is not resent');
        receiver.answer = () => ({ status: 200 });
        await d.runOnce();
        const [listed] = await listCallbacks(db, { status: 'delivered' });
        assert.equal(listed?.id, id);
        assert.equal(listed?.attempts, 1);
        assert.equal(listed?.attemptLog.length, 18, 'the log keeps the earlier attempts');
        assert.equal(receiver.receptions.at(-1)?.callbackId, id, 'the event id stays');
      });
    });

    describe('URL block', () => {
      it('five timeouts block the URL for fifteen minutes, for every merchant; delivered afterwards', async () => {
        receiver.answer = () => 'hang';
        const url = receiver.url('/slow');
        const d = dispatcher({ timeoutMs: 100, concurrency: 1 });
        const first = await Promise.all([1, 2, 3, 4, 5, 6].map(() => enqueue({ url })));
        const summary = await d.runOnce();
        assert.equal(summary.retried, 5, 'five timeouts');
        assert.equal(summary.deferred, 1, 'the sixth was not sent: the URL got blocked during the batch');
        // A POST can time out (100 ms) before a busy machine's receiver has read it: at most five arrive.
        const seenBeforeBlock = receiver.receptions.length;
        assert.ok(seenBeforeBlock >= 1 && seenBeforeBlock <= 5, `${seenBeforeBlock} receptions`);
        const blockedUntil = new Date(clock.now().getTime() + URL_BLOCK_RULE.blockMs);
        assert.deepEqual((await getUrlHealth(db, url)).blockedUntil, blockedUntil);
        assert.ok(log.lines.some((l) => l.msg === 'callback url blocked after repeated timeouts'));
        const deferred = (await Promise.all(first.map(callback))).find((c) => c.attempts === 0);
        assert.deepEqual(deferred?.nextAttemptAt, blockedUntil);

        receiver.answer = () => ({ status: 200 });
        const other = await enqueue({ merchantId: 'm2', url });
        assert.equal((await d.runOnce()).claimed, 0, "another merchant's callback waits too");
        clock.advance(URL_BLOCK_RULE.blockMs - 1);
        assert.equal((await d.runOnce()).claimed, 0, 'still blocked a millisecond before the end');
        const waiting = new Set([other, deferred?.id]);
        assert.ok(!receiver.receptions.some((r) => waiting.has(r.callbackId ?? '')), 'nothing sent while blocked');

        clock.advance(1);
        const after = await dispatcher({ timeoutMs: 10_000, concurrency: 1 }).runOnce();
        assert.equal(after.delivered, 7);
        assert.equal((await callback(other)).status, 'delivered');
        assert.deepEqual((await getUrlHealth(db, url)).timeouts, []);
      });

      it('an admin unblock lets waiting callbacks go at once', async () => {
        receiver.answer = () => 'hang';
        const url = receiver.url('/slow');
        const d = dispatcher({ timeoutMs: 100, concurrency: 5 });
        await Promise.all([1, 2, 3, 4, 5].map(() => enqueue({ url })));
        await d.runOnce();
        assert.ok((await getUrlHealth(db, url)).blockedUntil);
        receiver.answer = () => ({ status: 200 });
        clock.advance(MINUTE);
        assert.equal((await d.runOnce()).claimed, 0);
        assert.equal(await unblockUrl(db, url, clock.now()), true);
        // A patient dispatcher for the deliveries: 100 ms was for the hanging receiver, not for a busy machine.
        assert.equal((await dispatcher({ timeoutMs: 10_000, concurrency: 5 }).runOnce()).delivered, 5);
        assert.equal(await unblockUrl(db, url), false, 'nothing left to unblock');
      });
    });

    describe('several dispatchers', () => {
      it('two dispatchers polling one store deliver each callback exactly once', async () => {
        receiver.answer = async () => {
          await new Promise((r) => setTimeout(r, Math.random() * 15));
          return { status: 200, body: 'OK' };
        };
        const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => enqueue({ fields: sampleFields(i) })));
        const a = dispatcher({ batchSize: 7, concurrency: 3 });
        const b = dispatcher({ batchSize: 7, concurrency: 3 });
        a.start();
        b.start();
        try {
          await waitFor(async () => (await listCallbacks(db, { status: 'delivered' })).length === ids.length, 20_000);
        } finally {
          await Promise.all([a.stop(), b.stop()]);
        }
        const counts = new Map<string, number>();
        for (const r of receiver.receptions) counts.set(r.callbackId ?? '', (counts.get(r.callbackId ?? '') ?? 0) + 1);
        assert.equal(receiver.receptions.length, ids.length);
        for (const id of ids) assert.equal(counts.get(id), 1, `callback ${id} received once`);
      });

      it('a stopping dispatcher finishes the POST it started and gives the rest of its batch back at once', async () => {
        let answerFirst: (r: Response) => void = () => undefined;
        const posted: string[] = [];
        const stopping = dispatcher({
          concurrency: 1,
          leaseMs: 10 * MINUTE,
          fetchImpl: (_url, init) => {
            posted.push(String((init?.headers as Record<string, string>)['x-callback-id']));
            return new Promise<Response>((resolve) => (answerFirst = resolve));
          },
        });
        const ids = [await enqueue(), await enqueue(), await enqueue()];
        stopping.start();
        await waitFor(() => posted.length === 1);
        const stopped = stopping.stop();
        answerFirst(new Response('', { status: 200 }));
        await stopped;
        assert.equal(posted.length, 1, 'nothing new is started once stopping');
        const states = await Promise.all(ids.map((id) => callback(id)));
        assert.deepEqual(states.map((c) => c.status).sort(), ['delivered', 'pending', 'pending']);
        for (const c of states.filter((c) => c.status === 'pending')) {
          assert.equal(c.attempts, 0, 'given back untried');
          assert.equal(c.lockedUntil, null, 'no lease left to expire');
        }
        // Another node takes them at once, without waiting out a lease.
        assert.equal((await dispatcher().runOnce()).delivered, 2);
      });

      it('claims by two dispatchers at the same instant never overlap', async () => {
        await Promise.all(Array.from({ length: 30 }, (_, i) => enqueue({ fields: sampleFields(i) })));
        const claim = () => claimDue(db, { now: clock.now(), limit: 20, lockMs: MINUTE });
        const [x, y] = await Promise.all([claim(), claim()]);
        const xs = new Set(x.map((c) => c.id));
        assert.equal(x.length + y.length, 30);
        assert.ok(y.every((c) => !xs.has(c.id)));
      });

      it('a dispatcher that dies mid-batch loses its claim when the lease expires; another delivers', async () => {
        let releaseStuck: (r: Response) => void = () => undefined;
        let stuckCalled = false;
        const stuck = dispatcher({
          leaseMs: 30_000,
          fetchImpl: () => {
            stuckCalled = true;
            return new Promise<Response>((resolve) => (releaseStuck = resolve));
          },
        });
        const id = await enqueue();
        const stuckRun = stuck.runOnce();
        await waitFor(() => stuckCalled);

        const rescuer = dispatcher();
        assert.equal((await rescuer.runOnce()).claimed, 0, 'the lease still holds');
        clock.advance(30_000);
        assert.equal((await rescuer.runOnce()).delivered, 1);
        assert.equal(receiver.receptions.length, 1);

        // The "dead" one wakes up late: its answer is logged but cannot change the settled callback.
        releaseStuck(new Response('', { status: 500 }));
        assert.equal((await stuckRun).leaseLost, 1);
        const cb = await callback(id);
        assert.equal(cb.status, 'delivered');
        assert.equal(cb.attempts, 1);
        const [listed] = await listCallbacks(db, { merchantId: 'm1' });
        assert.deepEqual(listed?.attemptLog.map((a) => a.outcome).sort(), ['delivered', 'http_error']);
      });

      it('stop() waits for the batch in flight', async () => {
        let arrived = false;
        receiver.answer = async () => {
          arrived = true;
          await new Promise((r) => setTimeout(r, 200));
          return { status: 200 };
        };
        const id = await enqueue();
        const d = dispatcher();
        d.start();
        await waitFor(() => arrived);
        await d.stop();
        const cb = await callback(id);
        assert.equal(cb.status, 'delivered');
        assert.equal(cb.lockedUntil, null);
      });
    });

    describe('outbox', () => {
      it('a callback enqueued in a transaction that rolls back is never sent', async () => {
        await assert.rejects(
          db.transaction(async (tx) => {
            const [url, fields, now] = [receiver.url(), sampleFields(), clock.now()];
            await enqueueCallback(tx, { merchantId: 'm1', url, protocol: 'checkout', fields, now });
            throw new Error('state change failed');
          }),
        );
        assert.deepEqual(await listCallbacks(db), []);
        assert.equal((await dispatcher().runOnce()).claimed, 0);
      });

      it('enqueueing an existing event id again keeps one callback', async () => {
        const id = '6f1f3b4e-2f0a-4c55-9a53-2a1f6c1d9e10';
        const input = {
          id,
          merchantId: 'm1',
          url: receiver.url(),
          protocol: 'checkout' as const,
          fields: sampleFields(),
          now: clock.now(),
        };
        assert.equal(await enqueueCallback(db, input), id);
        assert.equal(await enqueueCallback(db, { ...input, fields: { other: 'x' } }), id);
        const listed = await listCallbacks(db, { merchantId: 'm1' });
        assert.equal(listed.length, 1);
        assert.deepEqual(listed[0]?.fields, sampleFields());
      });

      it('lists by merchant, payment and status', async () => {
        await enqueue({ merchantId: 'm1' });
        await enqueue({ merchantId: 'm2' });
        assert.equal((await listCallbacks(db)).length, 2);
        assert.equal((await listCallbacks(db, { merchantId: 'm2' })).length, 1);
        assert.equal((await listCallbacks(db, { paymentId: 'other' })).length, 0);
        assert.equal((await listCallbacks(db, { status: 'pending', limit: 1 })).length, 1);
      });
    });
  });
}
