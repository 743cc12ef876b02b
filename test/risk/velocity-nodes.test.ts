/**
 * Velocity counters under concurrency (issue 26): 100 S2S SALEs sent at once, split between two gateway nodes on
 * one PostgreSQL, of a few e-mails, IPs and cards, some declined. Property (fast-check over who pays with what on
 * which node): every counter holds exactly the model's count, attempts, approvals and declines apart, and the
 * distinct cards per e-mail and IP: no count lost, none counted twice.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { storeKinds, TEST_DATABASE_URL } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { sale } from '../s2s-card/support.ts';
import { assembleGateway, type Gateway } from '../../src/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { openPostgres, type Database } from '../../src/store/database.ts';
import { createLogger } from '../../src/logger.ts';
import { readAnswer } from '../support/answer.ts';
import { keyedHash, cardFingerprint } from '../../src/domain/risk/fingerprint.ts';
import { riskKeyOf } from '../../src/services/risk/engine.ts';
import { saveRuleSet } from '../../src/store/risk-repo.ts';
import type { RiskRuleSet } from '../../src/domain/risk/rules.ts';

/**
 * A payment keeps only the counters some rule reads (issue 24): the platform's rule set here reads every counter
 * the property checks (in shadow mode: recorded, no effect), so that all of them are written.
 */
const READS_EVERY_COUNTER: RiskRuleSet = { rules: [{ name: 'reads the counters the test checks', mode: 'shadow', when: { velocity: [
  ...(['merchant', 'email', 'ip'] as const).flatMap((by) => [
    { measure: 'attempts' as const, by, window_minutes: 10, more_than: 1_000_000 },
    { measure: 'declines' as const, by, window_minutes: 10, more_than: 1_000_000 },
  ]),
  { measure: 'distinct_cards', by: 'email', window_minutes: 60, more_than: 1_000_000 },
  { measure: 'distinct_cards', by: 'ip', window_minutes: 60, more_than: 1_000_000 },
] }, then: { action: 'block' } }] };

const CARDS = ['4111111111111111', '5555555555554444', '4000000000000002', '4012888888881881'];

for (const { kind, skip } of await storeKinds()) {
  const why = kind === 'pglite' ? 'PGlite runs in one process: there is no second node' : skip;
  describe(`velocity counters on two nodes (${kind})`, { skip: why }, () => {
    let node1: TestGateway;
    let node2: Gateway;
    let db2: Database;
    let node2Client: TestGateway;

    before(async () => {
      node1 = await startTestGateway('postgres');
      assert.ok(await saveRuleSet(node1.store.db, 'platform', READS_EVERY_COUNTER, 0, null, null, new Date()));
      const [row] = await node1.store.db.query<{ schema: string }>('SELECT current_schema() AS schema');
      db2 = await openPostgres({ url: TEST_DATABASE_URL, schema: row!.schema, max: 10 });
      node2 = await assembleGateway({ config: { ...loadConfig({}), port: 0, baseUrl: 'http://127.0.0.1:0' }, db: db2, keyring: node1.gateway.ctx.keyring, logger: createLogger('silent') });
      const url = await node2.app.listen({ port: 0, host: '127.0.0.1' });
      node2Client = {
        ...node1, baseUrl: url,
        postForm: async (path, fields) => readAnswer(await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString() })),
      };
    });
    after(async () => {
      await node2?.close();
      await db2?.close();
      await node1?.close();
    });

    it('100 concurrent SALEs on two nodes: every attempt, approval, decline and distinct card counted once', async () => {
      const payment = fc.record({ node: fc.integer({ min: 0, max: 1 }), email: fc.integer({ min: 0, max: 2 }), ip: fc.integer({ min: 0, max: 2 }), card: fc.integer({ min: 0, max: 3 }), declined: fc.boolean() });
      let run = 0;
      await fc.assert(fc.asyncProperty(fc.array(payment, { minLength: 100, maxLength: 100 }), async (payments) => {
        run += 1;
        const m: TestMerchant = await node1.addMerchant();
        const emailOf = (i: number) => `r${run}-${i}-${m.id.slice(0, 8)}@example.com`;
        const ipOf = (i: number) => `10.${run}.${i}.${parseInt(m.id.slice(0, 2), 16)}`;
        const answers = await Promise.all(payments.map((p) => sale(p.node === 0 ? node1 : node2Client, {
          payer_email: emailOf(p.email), payer_ip: ipOf(p.ip), card_number: CARDS[p.card], card_exp_month: p.declined ? '02' : '01',
        }, m)));
        for (const a of answers) assert.ok(a.body.status === 'SETTLED' || a.body.status === 'DECLINED', a.text);
        // What the acquirer answered is the model's outcome (the sandbox declines some cards whatever the expiry).
        const outcomes = payments.map((p, i) => ({ ...p, declined: answers[i]!.body.status === 'DECLINED' }));

        const key = riskKeyOf(node1.gateway.ctx.keyring);
        const rows = await node1.store.db.query<{ dimension: string; key: string; attempts: string; approvals: string; declines: string }>(
          `SELECT dimension, key, sum(attempts)::text AS attempts, sum(approvals)::text AS approvals, sum(declines)::text AS declines
           FROM risk_velocity WHERE grain = 1 AND dimension IN ('email', 'ip', 'merchant') GROUP BY dimension, key`);
        const seen = new Map(rows.map((r) => [`${r.dimension}:${r.key}`, r]));
        const expect = (dimension: string, k: string, list: { declined: boolean }[]) => {
          const got = seen.get(`${dimension}:${k}`);
          const declines = list.filter((p) => p.declined).length;
          assert.deepEqual(got && [got.attempts, got.approvals, got.declines], [String(list.length), String(list.length - declines), String(declines)], `${dimension} counters`);
        };
        expect('merchant', m.id, outcomes);
        for (let i = 0; i < 3; i++) {
          const byEmail = outcomes.filter((p) => p.email === i);
          if (byEmail.length > 0) expect('email', keyedHash(key, 'email', emailOf(i)), byEmail);
          const byIp = outcomes.filter((p) => p.ip === i);
          if (byIp.length > 0) expect('ip', keyedHash(key, 'ip', ipOf(i)), byIp);
        }
        const members = await node1.store.db.query<{ key: string; n: string }>(
          `SELECT key, count(DISTINCT member)::text AS n FROM risk_velocity_members WHERE grain = 60 AND dimension = 'email' GROUP BY key`);
        const distinct = new Map(members.map((r) => [r.key, r.n]));
        for (let i = 0; i < 3; i++) {
          const cards = new Set(payments.filter((p) => p.email === i).map((p) => cardFingerprint(key, CARDS[p.card]!)));
          if (cards.size > 0) assert.equal(distinct.get(keyedHash(key, 'email', emailOf(i))), String(cards.size), 'distinct cards per e-mail');
        }
      }), { numRuns: 3, endOnFailure: true });
    });
  });
}
