/**
 * Issue 31 item 7: webhook management over the admin API: a callback's event type and delivery state in words
 * (waiting behind an earlier failing callback, with its attempt count, and a next attempt never in the past), bulk
 * resend of ticked ids or of a filtered set, a test send that arrives signed, and the signing secret's reveal.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener, type ReceivedCallback } from '../support/merchant.ts';

const TOKEN = 'webhook-admin-token';

/** The Standard Webhooks check a receiver makes (v1, HMAC-SHA256 over "id.timestamp.body"). */
const signedWith = (secret: string, c: ReceivedCallback) => {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${c.headers['webhook-id']}.${c.headers['webhook-timestamp']}.${c.raw}`).digest('base64');
  return String(c.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
};

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: webhook management (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, adminToken: TOKEN });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    const admin = async (path: string, body?: unknown) => {
      const res = await fetch(`${t.baseUrl}/admin/v1${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: await res.json() as any };
    };

    /** Two callbacks of one payment: the first failing (3 attempts, retried in 10 minutes), the second due a minute ago. */
    async function failingPair(paymentId: string) {
      const insert = `INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, status, attempts, next_attempt_at, last_error, created_at)
        VALUES ($1, $2, $3, 'http://127.0.0.1:9/down', 'checkout', $4::text::jsonb, 'x=1', 'pending', $5, now() + $6::interval, $7, now())`;
      const first = crypto.randomUUID();
      const second = crypto.randomUUID();
      await t.store.db.query(insert, [first, t.merchant.id, paymentId, JSON.stringify({ type: 'sale', status: 'success' }), 3, '10 minutes', 'HTTP 500']);
      await t.store.db.query(insert, [second, t.merchant.id, paymentId, JSON.stringify({ type: 'refund', status: 'success' }), 0, '-1 minute', null]);
      return { first, second };
    }

    it('names the event and says that a callback waits behind an earlier failing one, with a next attempt not in the past', async () => {
      const paymentId = crypto.randomUUID();
      const { first, second } = await failingPair(paymentId);
      const { status, body } = await admin(`/callbacks?payment_id=${paymentId}`);
      assert.equal(status, 200);
      const byId = new Map(body.callbacks.map((c: any) => [c.id, c]));
      const a = byId.get(first) as any;
      const b = byId.get(second) as any;
      assert.equal(a.event_type, 'sale');
      assert.equal(a.state, 'retrying');
      assert.equal(b.event_type, 'refund');
      assert.equal(b.state, 'waiting_behind');
      assert.match(b.state_text, /earlier callback/);
      assert.deepEqual(b.waiting_behind, { id: first, attempts: 3, last_error: 'HTTP 500' });
      assert.ok(Date.parse(b.next_attempt_at) < Date.now(), 'stored schedule lies in the past');
      assert.ok(Date.parse(b.due_at) >= Date.parse(a.next_attempt_at) - 1000, 'due no earlier than the callback it waits behind');
      assert.ok(Date.parse(b.due_at) > Date.now());
      await t.store.db.query(`UPDATE callbacks SET status = 'failed' WHERE payment_id = $1`, [paymentId]);
    });

    it('resends ticked callbacks and a filtered set, each audited, unknown ids listed', async () => {
      const paymentId = crypto.randomUUID();
      const { first, second } = await failingPair(paymentId);
      await t.store.db.query(`UPDATE callbacks SET status = 'failed', next_attempt_at = now() + interval '1 hour' WHERE id = $1`, [first]);
      const missing = '00000000-0000-4000-8000-000000000000';
      const ticked = await admin('/callbacks/resend', { ids: [first, missing] });
      assert.equal(ticked.status, 200);
      assert.deepEqual(ticked.body, { resent: [first], due_now: [], sending: [], not_found: [missing], more: false });
      await t.store.db.query(`UPDATE callbacks SET status = 'failed', url = 'http://127.0.0.1:9/down' WHERE payment_id = $1`, [paymentId]);

      const filtered = await admin('/callbacks/resend', { filter: { payment_id: paymentId, status: 'failed' } });
      assert.equal(filtered.status, 200);
      assert.deepEqual([...filtered.body.resent].sort(), [first, second].sort());
      assert.equal(filtered.body.more, false);
      const audit = await admin(`/audit-log?action=callback.resend&object_id=${second}`);
      assert.equal(audit.body.entries.length, 1);

      assert.equal((await admin('/callbacks/resend', {})).status, 400, 'neither ids nor filter');
      assert.equal((await admin('/callbacks/resend', { ids: [first], filter: {} })).status, 400, 'both');
      await t.store.db.query(`UPDATE callbacks SET status = 'failed' WHERE payment_id = $1`, [paymentId]);
    });

    it('filters by event and by delivery state (waiting_behind too), pages by cursor, and a bulk resend uses the same filter', async () => {
      const paymentId = crypto.randomUUID();
      const { first, second } = await failingPair(paymentId);
      // A third, delivered, created at the very instant of the second: the cursor must neither skip nor repeat a tie.
      const third = crypto.randomUUID();
      await t.store.db.query(`INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, status, attempts, next_attempt_at, created_at, delivered_at)
        SELECT $1, merchant_id, payment_id, url, protocol, '{"type":"sale","status":"success"}'::jsonb, 'x=1', 'delivered', 1, now(), created_at, now() FROM callbacks WHERE id = $2`, [third, second]);
      const ids = async (query: string) => {
        const r = await admin(`/callbacks?payment_id=${paymentId}&${query}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.callbacks.map((c: any) => c.id).sort();
      };
      assert.deepEqual(await ids('event=refund'), [second]);
      assert.deepEqual(await ids('event=sale'), [first, third].sort());
      assert.deepEqual(await ids('state=waiting_behind'), [second]);
      assert.deepEqual(await ids('state=retrying&event=sale'), [first]);
      assert.deepEqual(await ids('state=delivered'), [third]);
      assert.deepEqual(await ids('state=waiting_behind&event=sale'), []);
      // Every row the list shows in a state answers that state when filtered by it.
      const all = (await admin(`/callbacks?payment_id=${paymentId}`)).body.callbacks;
      for (const c of all) assert.ok((await ids(`state=${c.state}`)).includes(c.id), `${c.id} in ${c.state}`);

      // Pages of one: each callback once, in the order of the unpaged list, the last page without a cursor.
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await admin(`/callbacks?payment_id=${paymentId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(r.status, 200);
        assert.ok(r.body.callbacks.length <= 1);
        paged.push(...r.body.callbacks.map((c: any) => c.id));
        cursor = r.body.next_cursor;
        assert.ok(paged.length <= 3, 'no page repeats a row');
      } while (cursor);
      assert.deepEqual(paged, all.map((c: any) => c.id));
      assert.equal(paged.length, 3);
      const two = await admin(`/callbacks?payment_id=${paymentId}&limit=2`);
      assert.equal(two.body.callbacks.length, 2);
      assert.notEqual(two.body.next_cursor, null);
      assert.equal((await admin(`/callbacks?payment_id=${paymentId}&limit=3`)).body.next_cursor, null, 'a page that holds the rest has no next cursor');

      for (const bad of ['state=lost', 'event=Sale%20x', 'cursor=not-a-cursor']) {
        const r = await admin(`/callbacks?${bad}`);
        assert.equal(r.status, 400, bad);
        assert.equal(r.body.http_code, 400);
      }

      // The bulk resend of a filtered set takes the same filter server-side: only the one waiting behind.
      const resent = await admin('/callbacks/resend', { filter: { payment_id: paymentId, state: 'waiting_behind', event: 'refund' } });
      assert.equal(resent.status, 200, JSON.stringify(resent.body));
      assert.deepEqual(resent.body, { resent: [], due_now: [second], sending: [], not_found: [], more: false });
      const none = await admin('/callbacks/resend', { filter: { payment_id: paymentId, event: 'chargeback' } });
      assert.deepEqual(none.body, { resent: [], due_now: [], sending: [], not_found: [], more: false });
      await t.store.db.query(`UPDATE callbacks SET status = 'failed' WHERE payment_id = $1`, [paymentId]);
    });

    it('sends a test callback that arrives signed with the secret the reveal shows, and lists it as a test event', async () => {
      const sent = await admin(`/merchants/${t.merchant.id}/callbacks/test`, {});
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const [c] = await listener.waitForMatching((x) => x.headers['x-callback-id'] === sent.body.id, 1, 15_000);
      assert.equal(c!.fields.type, 'test');
      const revealed = await admin(`/merchants/${t.merchant.id}/signing-secret/reveal`, {});
      assert.equal(revealed.status, 200);
      assert.match(revealed.body.signing_secret, /^whsec_/);
      assert.ok(signedWith(revealed.body.signing_secret, c!), 'the revealed secret verifies the test callback');
      const listed = (await admin(`/callbacks?merchant_id=${t.merchant.id}&limit=50`)).body.callbacks.find((x: any) => x.id === sent.body.id);
      assert.equal(listed.event_type, 'test');
      assert.equal(listed.payment_id, null);
      const audit = await admin(`/audit-log?action=merchant.reveal_signing_secret&object_id=${t.merchant.id}`);
      assert.equal(audit.body.entries.length, 1);
      assert.equal((await admin('/merchants/00000000-0000-4000-8000-000000000000/callbacks/test', {})).status, 404);
      assert.equal((await admin('/merchants/00000000-0000-4000-8000-000000000000/signing-secret/reveal', {})).status, 404);
    });
  });
}
