/**
 * The portal's payments export for a merchant group's user (issue 30): each member merchant's payments are read as
 * one keyset range of its own index and merged newest first (services/portal/payments.ts mergedPages), so the
 * export holds every payment of the group once, in order, and none of a merchant outside it; merchant_id narrows it
 * to one shop. The merge itself is checked across page boundaries with pages of 2.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient } from '../admin/support.ts';
import { exportLine, mergedPages, type PaymentLine } from '../../src/services/portal/payments.ts';
import { searchPaymentCsv, searchPaymentLines } from '../../src/store/payment-search-repo.ts';
import { EXPONENT_OVERRIDES } from '../../src/domain/money.ts';
import { invitedUser, portalClient, portalSignIn } from './support.ts';

const line = (created_at: string, id: string) => ({ id, created_at }) as PaymentLine;

async function* pagesOf(lines: PaymentLine[], size: number): AsyncGenerator<PaymentLine[]> {
  for (let i = 0; i < lines.length; i += size) yield lines.slice(i, i + size);
}

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('portal export: merging merchants\' pages newest first', () => {
  it('merges across page boundaries, ties broken by id, into pages of the size asked', async () => {
    const a = [line('2030-01-03T00:00:00.000Z', 'a3'), line('2030-01-02T00:00:00.000Z', 'b2'), line('2030-01-02T00:00:00.000Z', 'a2'), line('2030-01-01T00:00:00.000Z', 'a1')];
    const b = [line('2030-01-04T00:00:00.000Z', 'b4'), line('2030-01-02T00:00:00.000Z', 'c2'), line('2029-12-31T00:00:00.000Z', 'b0')];
    const pages: PaymentLine[][] = [];
    for await (const page of mergedPages([pagesOf(a, 2), pagesOf(b, 2), pagesOf([], 2)], 3)) pages.push(page);
    assert.deepEqual(pages.map((p) => p.map((l) => l.id)), [['b4', 'a3', 'c2'], ['b2', 'a2', 'a1'], ['b0']]);
  });
});

for (const { kind, skip } of kinds) {
  describe(`portal export of a merchant group (${kind})`, { skip }, () => {
    let t: TestGateway;
    let shop2: TestMerchant;
    let outsider: TestMerchant;
    const clock = new ManualClock('2030-05-01T10:00:00Z');
    const ADMIN = `portal-export-${kind}`;
    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: ADMIN });
      shop2 = await t.addMerchant();
      outsider = await t.addMerchant();
    });
    after(async () => t?.close());

    it('holds every payment of the group once, newest first, none of another merchant; merchant_id narrows it', async () => {
      const ids: string[] = [];
      for (const [i, m] of [t.merchant, shop2, shop2, t.merchant, shop2].entries()) {
        clock.set(new Date(Date.parse('2030-05-01T10:00:00Z') + i * 60_000));
        const paid = await sale(t, { order_id: `G-${i}` }, m);
        assert.equal(paid.body.status, 'SETTLED', paid.text);
        ids.push(paid.body.trans_id);
      }
      await sale(t, { order_id: 'OUTSIDE' }, outsider);
      const group = await adminClient(t.baseUrl, ADMIN)('POST', '/admin/v1/merchant-groups', { name: 'Two shops', merchant_ids: [t.merchant.id, shop2.id] });
      assert.equal(group.status, 201, group.text);
      const call = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'finance', groupId: group.body.id })).email));

      const csv = await call('GET', '/portal/v1/payments/export');
      assert.equal(csv.status, 200, csv.text);
      const rows = csv.text.trim().split('\r\n').slice(1).map((l) => JSON.parse(`[${l}]`) as string[]);
      assert.deepEqual(rows.map((r) => r[0]), [...ids].reverse(), 'the five payments, newest first');
      assert.ok(!csv.text.includes('OUTSIDE'));
      // One shop: the lines the database writes (searchPaymentCsv) are those the group's merge formats line by line.
      const one = await call('GET', `/portal/v1/payments/export?merchant_id=${shop2.id}`);
      assert.equal(one.text.split('\r\n').slice(1).join('\r\n'), csv.text.split('\r\n').slice(1).filter((l) => l.includes(`"${shop2.id}"`)).map((l) => `${l}\r\n`).join(''));
      assert.deepEqual(one.text.trim().split('\r\n').slice(1).map((l) => (JSON.parse(`[${l}]`) as string[])[0]), [ids[4], ids[2], ids[1]]);
    });

    it('the database writes each line as exportLine does: quotes, formulas, empty cells, amounts of every exponent', async () => {
      const m = await t.addMerchant();
      for (const [i, order] of ['=SUM(A1)', 'say "hi"', '+1', 'plain', '-2', '@x'].entries()) {
        clock.set(new Date(Date.parse('2030-06-01T10:00:00Z') + i * 1000));
        const paid = await sale(t, { order_id: order, order_amount: '12.34', payer_email: i % 2 ? `q${i}@shop.example` : `p${i}@shop.example` }, m);
        assert.equal(paid.body.status, 'SETTLED', paid.text);
      }
      // Amounts of exponents 0, 3 and 18 (set here: the sandbox's test MID takes other currencies).
      const ids = (await t.store.db.query<{ id: string }>('SELECT id FROM payments WHERE merchant_id = $1 ORDER BY created_at', [m.id])).map((r) => r.id);
      for (const [id, currency, amount] of [[ids[0], 'JPY', 1234], [ids[1], 'KWD', 1234567], [ids[2], 'ETH', 1]] as const) {
        await t.store.db.query('UPDATE payments SET currency = $2, amount = $3, captured_amount = $3 WHERE id = $1', [id, currency, amount]);
      }
      const search = { merchantId: m.id };
      const expected = (await searchPaymentLines(t.store.db, search, 100)).map(exportLine).join('');
      for (const cell of [`"'=SUM(A1)"`, '"say ""hi"""', `"'+1"`, `"'-2"`, `"'@x"`, '"1234"', '"1234.567"', '"0.000000000000000001"', '"12.34"']) {
        assert.ok(expected.includes(cell), `${cell} in ${expected}`);
      }
      const whole = await searchPaymentCsv(t.store.db, search, 100, undefined, EXPONENT_OVERRIDES);
      assert.equal(whole.text, expected);
      assert.equal(whole.lines, 6);
      // Pages of 4 then 2, the second after the first's last line.
      const first = await searchPaymentCsv(t.store.db, search, 4, undefined, EXPONENT_OVERRIDES);
      const second = await searchPaymentCsv(t.store.db, search, 4, first.last, EXPONENT_OVERRIDES);
      assert.deepEqual([first.lines, second.lines], [4, 2]);
      assert.equal(first.text + second.text, expected);
    });
  });
}
