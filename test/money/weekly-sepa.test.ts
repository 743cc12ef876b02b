/**
 * Weekly statements, a negative balance carried over, and the SEPA payout file (issue 27 item 5), over HTTP: a
 * merchant settled weekly to a Monday cut-off, T+1, gets one statement per week; a week whose refunds exceed its
 * captures leaves a negative available balance that nothing pays out and the next payout makes up first; the
 * euro payouts due export as a pain.001.001.09 file, parsed here, with the merchant's IBAN and BIC from its terms.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser } from 'fast-xml-parser';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { adminClient, fieldErrors, type AdminCall } from '../admin/support.ts';

const DEBTOR = { name: 'Portcullis Payments Ltd', iban: 'GB33 BUKB 2020 1555 5555 55', bic: 'BUKBGB22' };

for (const { kind, skip } of await storeKinds()) {
  describe(`weekly statements, carry-over and SEPA payouts (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    const clock = new ManualClock('2030-04-02T10:00:00Z'); // a Tuesday
    const token = `weekly-${kind}`;
    before(async () => {
      gw = await startTestGateway(kind, { clock, adminToken: token });
      admin = adminClient(gw.baseUrl, token);
    });
    after(() => gw?.close());

    const m = () => gw.merchant.id;
    const settle = async () => (await gw.gateway.settlement.runOnce()).statements;
    const statements = async () => (await admin('GET', `/admin/v1/merchants/${m()}/money/statements`)).body as Record<string, any>[];
    const available = async () => (await admin('GET', `/admin/v1/merchants/${m()}/balances`)).body.balances[0].available;
    const eur = (amount: string) => ({ order_amount: amount, order_currency: 'EUR' });
    const ids: string[] = [];

    it('settles a week once, after its Monday cut-off and a day', async () => {
      const terms = await admin('PUT', `/admin/v1/merchants/${m()}/money/terms`, {
        settlement_delay_days: 1, settlement_frequency: 'weekly', settlement_cutoff_weekday: 1,
        payout_account: { name: 'Müller & Söhne <Shop>', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX' },
      });
      assert.equal(terms.status, 200, terms.text);
      const fees = await admin('POST', '/admin/v1/money/fee-schedules', { merchant_id: m(), effective_from: clock.now().toISOString(), rows: [{ operation: 'sale', percent: '1' }] });
      assert.equal(fees.status, 201, fees.text);
      for (const amount of ['100.00', '50.00']) ids.push((await sale(gw, eur(amount))).body.trans_id);
      clock.set(new Date('2030-04-04T10:00:00Z'));
      ids.push((await sale(gw, eur('30.00'))).body.trans_id);

      clock.set(new Date('2030-04-08T12:00:00Z')); // the cut-off day itself: T+1 is not over
      assert.equal(await settle(), 0);
      assert.deepEqual(await statements(), []);
      clock.set(new Date('2030-04-09T00:20:00Z'));
      assert.equal(await settle(), 1);
      assert.equal(await settle(), 0, 'a week settles once');
      const [s1] = await statements();
      assert.deepEqual([s1!.period_to, s1!.gross, s1!.fees, s1!.net_payable, s1!.opening_available, s1!.transactions], ['2030-04-08T00:00:00.000Z', '180.00', '1.80', '178.20', '0.00', 3]);
      const paid = await admin('POST', `/admin/v1/money/statements/${s1!.id}/paid`, { bank_reference: 'SEPA-W14' });
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.payout.amount, '178.20');
      assert.equal(await available(), '0.00');
    });

    it('carries a negative week over: nothing is paid, the next payout makes it up first', async () => {
      clock.set(new Date('2030-04-10T10:00:00Z'));
      assert.equal((await followUp(gw, 'CREDITVOID', ids[0]!, { amount: '100.00' })).body.result, 'ACCEPTED');
      clock.set(new Date('2030-04-16T00:20:00Z'));
      assert.equal(await settle(), 1);
      const [s2] = await statements();
      assert.deepEqual([s2!.period_from, s2!.period_to, s2!.gross, s2!.fees, s2!.net_payable], ['2030-04-08T00:00:00.000Z', '2030-04-15T00:00:00.000Z', '-100.00', '0.00', '-100.00']);
      assert.equal(await available(), '-100.00');
      const refused = await admin('POST', `/admin/v1/money/statements/${s2!.id}/paid`, { bank_reference: 'SEPA-W15' });
      assert.equal(refused.status, 400, refused.text);
      assert.match(fieldErrors(refused.body)[0]!, /^net_payable: nothing is payable/);

      clock.set(new Date('2030-04-17T10:00:00Z'));
      await sale(gw, eur('250.00'));
      clock.set(new Date('2030-04-23T00:20:00Z'));
      assert.equal(await settle(), 1);
      const [s3] = await statements();
      assert.deepEqual([s3!.gross, s3!.fees, s3!.net_payable, s3!.opening_available], ['250.00', '2.50', '247.50', '-100.00']);
      const csv = await fetch(`${gw.baseUrl}/admin/v1/money/payouts/csv`, { headers: { authorization: `Bearer ${token}` } });
      const lines = (await csv.text()).trim().split('\n');
      assert.equal(lines[0], 'statement_id,merchant_id,currency,amount,period_from,period_to,account_name,iban,bic');
      assert.deepEqual(lines.slice(1).map((l) => l.split(',').slice(0, 4)), [[s3!.id, m(), 'EUR', '147.50']], '247.50 less the 100.00 carried over; the negative week pays nothing');
    });

    it('exports the payouts due as pain.001.001.09: amounts with the currency\'s exponent, the merchant\'s IBAN and BIC', async () => {
      const bad = await admin('POST', '/admin/v1/money/payouts/sepa', { debtor: { name: '', iban: 'GB00 BUKB 2020 1555 5555 55', bic: 'BUK' }, execution_date: '2030-04-01' });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(fieldErrors(bad.body).map((e) => e.split(':')[0]), ['debtor.name', 'debtor.iban', 'debtor.bic', 'execution_date']);

      const res = await fetch(`${gw.baseUrl}/admin/v1/money/payouts/sepa`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ debtor: DEBTOR, execution_date: '2030-04-24' }),
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/xml/);
      assert.equal(res.headers.get('x-payouts-transfers'), '1');
      const text = await res.text();
      const doc = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(text);
      assert.equal(doc.Document['@_xmlns'], 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09');
      const root = doc.Document.CstmrCdtTrfInitn;
      const [s3] = await statements();
      assert.match(root.GrpHdr.MsgId, /^[A-Za-z0-9-]{1,35}$/);
      assert.match(root.GrpHdr.CreDtTm, /^2030-04-23T00:20:00$/);
      assert.deepEqual([root.GrpHdr.NbOfTxs, root.GrpHdr.CtrlSum, root.GrpHdr.InitgPty.Nm], ['1', '147.50', DEBTOR.name]);
      const info = root.PmtInf;
      assert.deepEqual([info.PmtMtd, info.NbOfTxs, info.CtrlSum, info.PmtTpInf.SvcLvl.Cd, info.ReqdExctnDt.Dt, info.ChrgBr], ['TRF', '1', '147.50', 'SEPA', '2030-04-24', 'SLEV']);
      assert.deepEqual([info.Dbtr.Nm, info.DbtrAcct.Id.IBAN, info.DbtrAgt.FinInstnId.BICFI], [DEBTOR.name, 'GB33BUKB20201555555555', 'BUKBGB22']);
      const tx = info.CdtTrfTxInf;
      assert.ok(!Array.isArray(tx), 'one transfer');
      assert.equal(tx.PmtId.EndToEndId, s3!.id.replaceAll('-', ''));
      assert.deepEqual([tx.Amt.InstdAmt['#text'], tx.Amt.InstdAmt['@_Ccy']], ['147.50', 'EUR']);
      assert.match(tx.Amt.InstdAmt['#text'], /^\d+\.\d{2}$/, 'EUR has two decimals');
      assert.deepEqual([tx.CdtrAgt.FinInstnId.BICFI, tx.Cdtr.Nm, tx.CdtrAcct.Id.IBAN], ['COBADEFFXXX', 'Muller Sohne Shop', 'DE89370400440532013000']);
      assert.match(tx.RmtInf.Ustrd, new RegExp(`statement ${s3!.id}$`));

      const paid = await admin('POST', `/admin/v1/money/statements/${s3!.id}/paid`, { bank_reference: 'SEPA-W16' });
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.payout.amount, '147.50');
      assert.equal(await available(), '0.00', 'the carried-over balance made up, the rest paid');
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });
  });
}
