/**
 * Issue 31 item 14, continued: the e-mailed receipt goes when the payment succeeds, whatever the channel, not only
 * when the payer sees a receipt page; exactly once. Over HTTP on both stores with the gateway's workers running: an
 * S2S card sale (no payer page at all) is mailed by the receipt mailer; an authorization is mailed only once it is
 * captured; a merchant without receipt_email queues nothing; the receipt page and two mailers racing on one queued
 * receipt send it once. A mail port that fails: the receipt is tried again after its delay (twice failing, then sent
 * once), and given up after the last attempt with the reason logged and kept.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { sale, followUp, EMAIL } from '../s2s-card/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { receiptMailOf } from '../../src/store/receipt-mails-repo.ts';
import { getPayment } from '../../src/store/payments-repo.ts';
import { mailReceipt, sendQueuedReceipts } from '../../src/services/mail/receipts.ts';
import { claimQueuedReceiptMails, queueReceiptMail } from '../../src/store/receipt-mails-repo.ts';
import { RECEIPT_MAIL_SENDING_LEASE_MS } from '../../src/domain/receipt-mail.ts';
import { findMerchantById } from '../../src/store/merchants-repo.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { createLogger } from '../../src/logger.ts';
import type { MailMessage, MailPort } from '../../src/services/context.ts';

const ADMIN = 'receipt-mail-admin-token';
type Outbox = { messages: { subject: string; body: string }[] };

for (const { kind, skip } of await storeKinds()) {
  describe(`the e-mailed receipt when the payment succeeds (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    let mailing: TestMerchant;
    let quiet: TestMerchant;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN, workers: true });
      admin = adminClient(t.baseUrl, ADMIN);
      mailing = await t.addMerchant();
      quiet = await t.addMerchant();
      const on = await admin('PATCH', `/admin/v1/merchants/${mailing.id}/settings`, { receipt_email: true });
      assert.equal(on.status, 200, on.text);
    });
    after(async () => {
      await t?.close();
    });

    const outbox = async (to: string): Promise<Outbox['messages']> =>
      ((await (await fetch(`${t.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(to)}`)).json()) as Outbox).messages;
    /** The outbox's messages for `to`, once `count` are there (20 s at most: the mailer runs in the background). */
    async function mailsFor(to: string, count: number, subject?: string): Promise<Outbox['messages']> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const messages = (await outbox(to)).filter((m) => !subject || m.subject.includes(subject));
        if (messages.length >= count || Date.now() > deadline) return messages;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    async function mailSettled(paymentId: string): Promise<void> {
      const deadline = Date.now() + 20_000;
      while ((await receiptMailOf(t.store.db, paymentId))?.status !== 'sent' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    }

    it('an S2S card sale, with no payer page at all, is mailed once by the receipt mailer', async () => {
      const order = `S2S-RCPT-${kind}-${Date.now()}`;
      const res = await sale(t, { order_id: order, order_amount: '12.34' }, mailing);
      assert.equal(res.body.status, 'SETTLED', res.text);
      const id = res.body.trans_id as string;
      await mailSettled(id);
      assert.deepEqual(await receiptMailOf(t.store.db, id), { recipient: EMAIL, status: 'sent' });
      const mails = await mailsFor(EMAIL, 1, order);
      assert.equal(mails.length, 1, JSON.stringify(mails));
      assert.match(mails[0]!.subject, new RegExp(`^Your receipt from .+ \\(order ${order}\\)$`));
      assert.ok(mails[0]!.body.includes('12.34'), mails[0]!.body);
      // Once: a later refund of the payment queues nothing, and another pass of the mailer finds nothing to send.
      assert.equal((await followUp(t, 'CREDITVOID', id, { amount: '1.00' }, mailing)).status, 200);
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 0);
      assert.equal((await outbox(EMAIL)).filter((m) => m.subject.includes(order)).length, 1);
    });

    it('an authorization is mailed once it is captured, not before', async () => {
      const order = `AUTH-RCPT-${kind}-${Date.now()}`;
      const held = await sale(t, { order_id: order, auth: 'Y', order_amount: '5.00' }, mailing);
      assert.equal(held.body.status, 'PENDING', held.text);
      const id = held.body.trans_id as string;
      assert.equal(await receiptMailOf(t.store.db, id), undefined, 'not paid yet: nothing queued');
      const captured = await followUp(t, 'CAPTURE', id, {}, mailing);
      assert.equal(captured.status, 200, captured.text);
      assert.equal((await getPayment(t.store.db, id))!.status, 'settled');
      await mailSettled(id);
      assert.deepEqual(await receiptMailOf(t.store.db, id), { recipient: EMAIL, status: 'sent' });
      assert.equal((await mailsFor(EMAIL, 1, order)).length, 1);
    });

    it('a merchant without receipt_email queues nothing', async () => {
      const res = await sale(t, { order_id: `QUIET-${kind}-${Date.now()}` }, quiet);
      assert.equal(res.body.status, 'SETTLED', res.text);
      assert.equal(await receiptMailOf(t.store.db, res.body.trans_id as string), undefined);
    });

    it('the receipt page and two mailers racing on one queued receipt send it once', async () => {
      const res = await sale(t, { order_id: `RACE-${kind}-${Date.now()}` }, quiet); // queues nothing itself
      const id = res.body.trans_id as string;
      const payment = (await getPayment(t.store.db, id))!;
      const to = `race-${kind}-${Date.now()}@example.com`;
      const found = (await findMerchantById(t.store.db, t.gateway.ctx.keyring, quiet.id))!;
      const merchant = { ...found, settings: { ...found.settings, receiptEmail: true } };
      await queueReceiptMail(t.store.db, id, to, new Date());
      const ctx = t.gateway.ctx;
      await Promise.all([
        mailReceipt(ctx, merchant, { ...payment, payer: { ...payment.payer, email: to } }, { subject: 'Receipt (page)', text: 'from the page' }),
        sendQueuedReceipts(ctx), sendQueuedReceipts(ctx),
      ]);
      await mailSettled(id);
      assert.equal((await outbox(to)).length, 1);
      assert.equal((await receiptMailOf(t.store.db, id))!.status, 'sent');
    });
  });

  describe(`the e-mailed receipt when the mail port fails (${kind})`, { skip }, () => {
    let t: TestGateway;
    let mailing: TestMerchant;
    const clock = new ManualClock('2030-03-02T10:00:00Z');
    const logged: { level: number; msg: string; paymentId?: string; attempt?: number }[] = [];
    /** The mail port: fails while `failures` says so (a busy SMTP server), else the gateway's own (the sandbox outbox). */
    let failures = 0;
    let tried = 0;
    before(async () => {
      const logger = createLogger('warn', { write: (line: string) => void logged.push(JSON.parse(line)) });
      // No workers: each pass of the receipt mailer is made here, with the clock moved between.
      t = await startTestGateway(kind, { adminToken: ADMIN, clock, logger });
      mailing = await t.addMerchant();
      const on = await adminClient(t.baseUrl, ADMIN)('PATCH', `/admin/v1/merchants/${mailing.id}/settings`, { receipt_email: true });
      assert.equal(on.status, 200, on.text);
      const real = t.gateway.ctx.mail!;
      const flaky: MailPort = {
        async send(m: MailMessage) {
          tried++;
          if (failures > 0) {
            failures--;
            throw new Error('421 4.3.2 Service not available, try again later');
          }
          await real.send(m);
        },
      };
      (t.gateway.ctx as { mail?: MailPort }).mail = flaky;
    });
    after(async () => {
      await t?.close();
    });

    const row = async (id: string) => (await t.store.db.query<{ status: string; attempts: number; next_attempt_at: Date | string | null; last_error: string | null }>(
      'SELECT status, attempts, next_attempt_at, last_error FROM receipt_mails WHERE payment_id = $1', [id]))[0]!;
    const at = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());
    const outbox = async (to: string, order: string): Promise<Outbox['messages']> =>
      ((await (await fetch(`${t.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(to)}`)).json()) as Outbox).messages.filter((m) => m.subject.includes(order));
    const paidSale = async (order: string) => {
      const res = await sale(t, { order_id: order, order_amount: '7.70' }, mailing);
      assert.equal(res.body.status, 'SETTLED', res.text);
      return res.body.trans_id as string;
    };

    it('fails twice, is tried again after each delay, then sent once', async () => {
      const order = `FLAKY-${kind}-${Date.now()}`;
      const id = await paidSale(order);
      failures = 2;
      tried = 0;
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 1);
      assert.deepEqual({ ...(await row(id)), next_attempt_at: at((await row(id)).next_attempt_at) },
        { status: 'pending', attempts: 1, next_attempt_at: '2030-03-02T10:01:00.000Z', last_error: '421 4.3.2 Service not available, try again later' });
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 0, 'not due before its delay');
      clock.advance(60_000);
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 1);
      assert.deepEqual([(await row(id)).status, (await row(id)).attempts, at((await row(id)).next_attempt_at)], ['pending', 2, '2030-03-02T10:06:00.000Z']);
      clock.advance(4 * 60_000);
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 0, 'the second delay is longer');
      clock.advance(60_000);
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 1);
      const sent = await row(id);
      assert.deepEqual([sent.status, sent.attempts, sent.next_attempt_at], ['sent', 3, null]);
      assert.equal(tried, 3);
      assert.equal((await outbox(EMAIL, order)).length, 1, 'sent once');
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 0);
      assert.equal(logged.filter((l) => l.paymentId === id && l.msg === 'the receipt e-mail was not sent; it is tried again').length, 2);
    });

    it('a mailer that died after its claim: the receipt is claimed again once the lease ran out, and sent once', async () => {
      const order = `DIED-${kind}-${Date.now()}`;
      const id = await paidSale(order);
      failures = 0;
      // A mailer claims the receipt, then its process dies before it sends or records anything.
      const lost = await claimQueuedReceiptMails(t.store.db, 50, clock.now());
      assert.deepEqual(lost.map((m) => m.paymentId), [id]);
      assert.equal((await row(id)).status, 'sending');
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 0, 'held while the lease runs');
      clock.advance(RECEIPT_MAIL_SENDING_LEASE_MS - 1_000);
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 0, 'held until the lease ends');
      clock.advance(1_000);
      tried = 0;
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 1, 'claimed again');
      const sent = await row(id);
      assert.deepEqual([sent.status, sent.attempts, sent.next_attempt_at], ['sent', 2, null], 'the lost attempt is counted');
      assert.equal(tried, 1);
      assert.equal((await outbox(EMAIL, order)).length, 1, 'sent once');
      assert.equal(await sendQueuedReceipts(t.gateway.ctx), 0);
    });

    it('is given up after the last attempt, with the reason logged and kept', async () => {
      const order = `DOWN-${kind}-${Date.now()}`;
      const id = await paidSale(order);
      failures = 1_000;
      for (let pass = 0; pass < 10; pass++) {
        await sendQueuedReceipts(t.gateway.ctx);
        clock.advance(60 * 60_000);
      }
      const given = await row(id);
      assert.deepEqual([given.status, given.attempts, given.next_attempt_at, given.last_error], ['failed', 4, null, '421 4.3.2 Service not available, try again later']);
      const reason = logged.filter((l) => l.paymentId === id && l.level >= 50);
      assert.deepEqual(reason.map((l) => l.msg), ['the receipt e-mail was given up after 4 attempts: 421 4.3.2 Service not available, try again later']);
      assert.equal((await outbox(EMAIL, order)).length, 0);
      failures = 0;
    });
  });
}
