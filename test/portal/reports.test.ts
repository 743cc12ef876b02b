/**
 * Scheduled reports (issue 30): a finance user subscribes a daily payments report (a filter, e-mailed) and a weekly
 * fees report (kept 3 days for download). Two nodes over one store run their report workers side by side with the
 * test clock: nothing before a period's end and its grace; then each due period's report is made exactly once
 * (the daily ones a week missed included), in several gzip chunks, its text the same as the export of its window;
 * one e-mail per e-mailed report, with the link; another user, another merchant's owner and no session never get
 * it; a viewer may not subscribe what it may not export; an expired report is deleted.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { nextPeriodEnd, periodStart } from '../../src/domain/reports.ts';
import { claimDueSubscription, finishReport, releaseLease } from '../../src/store/reports-repo.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient } from '../admin/support.ts';
import { invitedUser, portalClient, portalSignIn, request } from './support.ts';

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('scheduled report periods (UTC)', () => {
  it('ends a day at midnight, a week on Monday, a month on the 1st; each period starts where the one before ended', () => {
    const at = new Date('2030-04-03T15:00:00Z'); // a Wednesday
    assert.equal(nextPeriodEnd('daily', at).toISOString(), '2030-04-04T00:00:00.000Z');
    assert.equal(nextPeriodEnd('weekly', at).toISOString(), '2030-04-08T00:00:00.000Z');
    assert.equal(nextPeriodEnd('weekly', new Date('2030-04-08T00:00:00Z')).toISOString(), '2030-04-15T00:00:00.000Z', 'from a Monday midnight: the next Monday');
    assert.equal(nextPeriodEnd('weekly', new Date('2030-04-07T23:59:59Z')).toISOString(), '2030-04-08T00:00:00.000Z', 'from a Sunday');
    assert.equal(nextPeriodEnd('monthly', new Date('2030-12-31T23:00:00Z')).toISOString(), '2031-01-01T00:00:00.000Z');
    assert.equal(periodStart('monthly', new Date('2030-03-01T00:00:00Z')).toISOString(), '2030-02-01T00:00:00.000Z');
    assert.equal(periodStart('weekly', new Date('2030-04-08T00:00:00Z')).toISOString(), '2030-04-01T00:00:00.000Z');
    for (const cadence of ['daily', 'weekly', 'monthly'] as const) {
      const end = nextPeriodEnd(cadence, at);
      assert.equal(periodStart(cadence, nextPeriodEnd(cadence, end)).getTime(), end.getTime(), cadence);
    }
  });
});

for (const { kind, skip } of kinds) {
  describe(`portal: scheduled reports made once by two nodes (${kind})`, { skip }, () => {
    let a: TestGateway;
    let b: TestGateway;
    const clock = new ManualClock('2030-04-01T10:00:00Z');
    const token = `portal-reports-${kind}`;
    before(async () => {
      a = await startTestGateway(kind, { clock, adminToken: token });
      b = await startTestGateway(kind, { clock, store: a.store });
    });
    after(async () => {
      await b?.gateway.close();
      await a?.close();
    });
    /** Both nodes' workers, twice each, at once; chunks of 100 characters so that a report spans several. */
    const bothNodes = async () => {
      const runs = await Promise.all([a, b, a, b].map((node) => node.gateway.reports.runOnce({ chunkChars: 100 })));
      return runs.flatMap((r) => r.produced);
    };

    it('makes each due report once across nodes, mails its link once, keeps it to its user, deletes it when expired', async () => {
      const m = a.merchant.id;
      const admin = adminClient(a.baseUrl, token);
      assert.equal((await admin('POST', '/admin/v1/money/fee-schedules', { merchant_id: m, effective_from: clock.now().toISOString(), rows: [{ operation: 'sale', percent: '1' }] })).status, 201);
      const financeUser = await invitedUser(a, token, { role: 'finance' });
      // A session ends idle after 30 minutes: the user signs in again after each move of the clock.
      const signIn = async () => portalClient(a.baseUrl, await portalSignIn(a.baseUrl, financeUser.email));
      let finance = await signIn();

      const daily = await finance('POST', '/portal/v1/report-subscriptions', { kind: 'payments', cadence: 'daily', delivery: 'email', query: { status: 'settled', limit: '5' } });
      assert.equal(daily.status, 201, daily.text);
      assert.deepEqual([daily.body.next_period_to, daily.body.query, daily.body.keep_days], ['2030-04-02T00:00:00.000Z', { status: 'settled' }, 30]);
      const weekly = await finance('POST', '/portal/v1/report-subscriptions', { kind: 'fees', cadence: 'weekly', delivery: 'download', keep_days: 3 });
      assert.equal(weekly.status, 201, weekly.text);
      assert.equal(weekly.body.next_period_to, '2030-04-08T00:00:00.000Z');
      assert.equal((await finance('POST', '/portal/v1/report-subscriptions', { kind: 'fees', cadence: 'hourly', delivery: 'download' })).status, 400);
      assert.equal((await finance('POST', '/portal/v1/report-subscriptions', { kind: 'refunds', cadence: 'daily', delivery: 'download', query: { status: 'settled' } })).status, 400, 'a filter is for payments only');
      assert.equal((await finance('POST', '/portal/v1/report-subscriptions', { kind: 'payments', cadence: 'daily', delivery: 'download', query: { status: 'nonsense' } })).status, 400);
      const listed = await finance('GET', '/portal/v1/report-subscriptions');
      assert.deepEqual(listed.body.subscriptions.map((s: { id: string }) => s.id), [daily.body.id, weekly.body.id]);

      // 1 April: two settled sales (the report's), one declined (not settled: filtered out); one sale on 2 April.
      const april1: string[] = [];
      for (const [i, amount] of ['10.00', '20.00'].entries()) {
        clock.set(new Date(Date.parse('2030-04-01T11:00:00Z') + i * 60_000));
        april1.push((await sale(a, { order_amount: amount, order_id: `R-${i}` })).body.trans_id);
      }
      assert.equal((await sale(a, { card_exp_month: '02', order_id: 'R-declined' })).body.status, 'DECLINED');
      clock.set(new Date('2030-04-02T00:05:00Z'));
      await sale(a, { order_amount: '7.00', order_id: 'R-next-day' });
      assert.deepEqual(await bothNodes(), [], 'within the grace after midnight nothing is made');

      clock.set(new Date('2030-04-02T00:20:00Z'));
      const first = await bothNodes();
      assert.equal(first.length, 1, `one report in all: ${JSON.stringify(first)}`);
      assert.deepEqual(await bothNodes(), [], 'and never again');
      finance = await signIn();
      const reports = (await finance('GET', '/portal/v1/reports')).body.reports;
      assert.equal(reports.length, 1);
      const [report] = reports;
      assert.deepEqual([report.kind, report.cadence, report.period_from, report.period_to, report.lines, report.mail, report.merchant_ids],
        ['payments', 'daily', '2030-04-01T00:00:00.000Z', '2030-04-02T00:00:00.000Z', 2, 'sent', [m]]);
      assert.equal(report.id, first[0]!.reportId);

      const csv = await finance('GET', `/portal/v1/reports/${report.id}/download`);
      assert.equal(csv.status, 200, csv.text);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(csv.headers.get('content-disposition') ?? '', /filename="payments-daily-2030-04-01\.csv"/);
      const chunks = await a.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM report_chunks WHERE report_id = $1', [report.id]);
      assert.ok(chunks[0]!.n >= 2, `several chunks: ${chunks[0]!.n}`);
      const exported = await finance('GET', '/portal/v1/payments/export?status=settled&created_from=2030-04-01T00:00:00Z&created_to=2030-04-02T00:00:00Z');
      assert.equal(csv.text, exported.text, 'the report is the export of its period');
      assert.deepEqual(csv.text.trim().split('\r\n').slice(1).map((l) => l.split(',')[0]), [...april1].reverse().map((id) => `"${id}"`));
      assert.equal(report.bytes, Buffer.byteLength(csv.text));

      const mails = (await request(a.baseUrl, 'GET', `/sandbox/outbox/messages?to=${encodeURIComponent(financeUser.email)}`)).body.messages
        .filter((msg: { subject: string }) => msg.subject.includes('report'));
      assert.equal(mails.length, 1, JSON.stringify(mails));
      assert.equal(mails[0].subject, 'Your daily payments report, 2030-04-01');
      // The link to the Reports screen, at the public address of the node that sent it (the test's two differ).
      assert.ok([a, b].some((node) => mails[0].link === `${node.gateway.ctx.baseUrl}/portal/reports?report=${report.id}`), mails[0].link);
      assert.ok(mails[0].body.includes(mails[0].link) && mails[0].body.includes('2 lines'), mails[0].body);

      // Only its user: another user of the merchant, another merchant's owner, no session.
      const ownerUser = await invitedUser(a, token, { role: 'owner' });
      const owner = portalClient(a.baseUrl, await portalSignIn(a.baseUrl, ownerUser.email));
      assert.equal((await owner('GET', `/portal/v1/reports/${report.id}/download`)).status, 404);
      assert.deepEqual((await owner('GET', '/portal/v1/reports')).body.reports, []);
      assert.equal((await owner('DELETE', `/portal/v1/report-subscriptions/${daily.body.id}`)).status, 404);
      const other = await a.addMerchant();
      const stranger = portalClient(a.baseUrl, await portalSignIn(a.baseUrl, (await invitedUser(a, token, { role: 'owner', merchantId: other.id })).email));
      assert.equal((await stranger('GET', `/portal/v1/reports/${report.id}/download`)).status, 404);
      assert.equal((await stranger('POST', '/portal/v1/report-subscriptions', { kind: 'payments', cadence: 'daily', delivery: 'download', merchant_id: m })).status, 404);
      assert.equal((await request(a.baseUrl, 'GET', `/portal/v1/reports/${report.id}/download`)).status, 401);
      const viewer = portalClient(a.baseUrl, await portalSignIn(a.baseUrl, (await invitedUser(a, token, { role: 'viewer' })).email));
      assert.equal((await viewer('POST', '/portal/v1/report-subscriptions', { kind: 'payments', cadence: 'daily', delivery: 'download' })).status, 403);
      assert.equal((await viewer('POST', '/portal/v1/report-subscriptions', { kind: 'fees', cadence: 'daily', delivery: 'download' })).status, 403);

      // A week later: the six daily reports missed (2 to 7 April) and the week's fees, each once.
      clock.set(new Date('2030-04-08T00:30:00Z'));
      const week = await bothNodes();
      finance = await signIn();
      const made = (await finance('GET', '/portal/v1/reports')).body.reports as { id: string; kind: string; period_from: string; lines: number; mail: string }[];
      assert.equal(week.length, 7, JSON.stringify(week));
      assert.equal(made.length, 8);
      assert.equal(new Set(made.map((r) => `${r.kind}:${r.period_from}`)).size, 8, 'one report per period');
      const fees = made.find((r) => r.kind === 'fees')!;
      assert.deepEqual([fees.period_from, fees.lines, fees.mail], ['2030-04-01T00:00:00.000Z', 3, 'none']);
      assert.equal(made.find((r) => r.period_from === '2030-04-02T00:00:00.000Z')!.lines, 1, 'the sale of 2 April');
      const allMails = (await request(a.baseUrl, 'GET', `/sandbox/outbox/messages?to=${encodeURIComponent(financeUser.email)}`)).body.messages.filter((msg: { subject: string }) => msg.subject.includes('report'));
      assert.equal(allMails.length, 7, 'one e-mail per daily report; the fees report is for download');
      const feeCsv = await finance('GET', `/portal/v1/reports/${fees.id}/download`);
      assert.equal(feeCsv.text, (await finance('GET', '/portal/v1/fees/export?created_from=2030-04-01&created_to=2030-04-08')).text);

      // The fees report is kept 3 days: gone after them (and its download with it); the daily ones stay 30.
      clock.set(new Date('2030-04-11T01:00:00Z'));
      await bothNodes();
      finance = await signIn();
      const owner2 = portalClient(a.baseUrl, await portalSignIn(a.baseUrl, ownerUser.email));
      const left = (await finance('GET', '/portal/v1/reports')).body.reports as { kind: string }[];
      assert.equal(left.filter((r) => r.kind === 'fees').length, 0);
      assert.equal((await finance('GET', `/portal/v1/reports/${fees.id}/download`)).status, 404);
      assert.equal((await a.store.db.query('SELECT 1 FROM report_chunks WHERE report_id = $1', [fees.id])).length, 0, 'its chunks deleted');

      // Unsubscribing deletes the subscription and its reports.
      assert.equal((await finance('DELETE', `/portal/v1/report-subscriptions/${daily.body.id}`)).status, 204);
      assert.deepEqual((await finance('GET', '/portal/v1/reports')).body.reports, []);
      const audit = (await owner2('GET', '/portal/v1/audit?limit=100')).body.entries.map((e: { action: string }) => e.action);
      assert.ok(audit.includes('report_subscription.create') && audit.includes('report_subscription.delete'), audit.join());
    });

    it('a node whose lease ran out finishes nothing: the node that took the subscription over makes its report', async () => {
      const user = await invitedUser(a, token, { role: 'finance' });
      const call = portalClient(a.baseUrl, await portalSignIn(a.baseUrl, user.email));
      const sub = await call('POST', '/portal/v1/report-subscriptions', { kind: 'disputes', cadence: 'daily', delivery: 'download' });
      assert.equal(sub.status, 201, sub.text);
      const periodTo = new Date(sub.body.next_period_to);
      const db = a.store.db;
      const claim = (now: Date, leaseToken: string) => claimDueSubscription(db, { now, dueBefore: now, leaseUntil: new Date(now.getTime() + 60_000), leaseToken });
      // Other subscriptions are due too: claim until this one comes (the others are released).
      const claimOurs = async (now: Date, leaseToken: string) => {
        const others: { id: string; leaseToken: string }[] = [];
        let got;
        while ((got = await claim(now, leaseToken)) && got.id !== sub.body.id) others.push(got);
        for (const o of others) await releaseLease(db, o.id, o.leaseToken);
        return got;
      };
      const t0 = new Date(periodTo.getTime() + 20 * 60_000);
      const first = await claimOurs(t0, 'lease-of-node-a');
      assert.equal(first?.id, sub.body.id);
      assert.equal((await claimOurs(new Date(t0.getTime() + 30_000), 'lease-of-node-b')), undefined, 'held while the lease runs');
      const second = await claimOurs(new Date(t0.getTime() + 61_000), 'lease-of-node-b');
      assert.equal(second?.id, sub.body.id, 'taken over once the lease ran out');
      const finish = (leaseToken: string) => db.transaction((tx) => finishReport(tx, { reportId: 'none', subscriptionId: sub.body.id, leaseToken, nextPeriodTo: new Date(periodTo.getTime() + 86_400_000), lines: 0, bytes: 0, mail: false }));
      assert.equal(await finish('lease-of-node-a'), false, 'the first node lost its lease: nothing moves');
      assert.equal(await finish('lease-of-node-b'), true);
      assert.equal(await finish('lease-of-node-b'), false, 'and only once');
    });

    it('a user who may no longer export gets no report: the period is skipped, not made', async () => {
      const user = await invitedUser(a, token, { role: 'finance' });
      const call = portalClient(a.baseUrl, await portalSignIn(a.baseUrl, user.email));
      const sub = await call('POST', '/portal/v1/report-subscriptions', { kind: 'refunds', cadence: 'daily', delivery: 'download' });
      assert.equal(sub.status, 201, sub.text);
      const admin = adminClient(a.baseUrl, token);
      assert.equal((await admin('PATCH', `/admin/v1/merchant-users/${user.id}`, { role: 'viewer' })).status, 200);
      clock.set(new Date(Date.parse(sub.body.next_period_to) + 20 * 60_000));
      const produced = await bothNodes();
      assert.ok(!produced.some((p) => p.subscriptionId === sub.body.id), JSON.stringify(produced));
      const [row] = await a.store.db.query<{ next_period_to: Date }>('SELECT next_period_to FROM report_subscriptions WHERE id = $1', [sub.body.id]);
      assert.equal(new Date(row!.next_period_to).toISOString(), new Date(Date.parse(sub.body.next_period_to) + 86_400_000).toISOString(), 'moved on to the next day');
    });
  });
}
