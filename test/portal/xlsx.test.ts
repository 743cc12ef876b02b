/**
 * XLSX exports (issue 30, reports): the CSV reader fed in chunks split anywhere reads the same rows (quotes, doubled
 * quotes, line breaks inside quotes, empty cells); the sheet's cells (column names, numbers in the amount columns,
 * text never a formula: the CSV's apostrophe taken off, XML escaped, characters XML cannot carry dropped); and over
 * HTTP the portal's fees and payments exports as a workbook a spreadsheet opens (read here with a zip reader of
 * the tests' own), the same rows as the CSV.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { CsvRows, XLSX_CONTENT_TYPE, columnName, rowXml } from '../../src/domain/xlsx.ts';
import { splitCsvLine } from '../../src/domain/csv.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient } from '../admin/support.ts';
import { sheetRows, unzip } from '../support/unzip.ts';
import { invitedUser, portalSignIn } from './support.ts';

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('XLSX cells and the CSV reader', () => {
  it('reads the same rows whatever the chunks', () => {
    const csv = '"a","b ""quoted""","c"\r\n"1","line\r\nbreak",""\r\n"","x,y","\'=1+2"\n"last","",""';
    const expected = [['a', 'b "quoted"', 'c'], ['1', 'line\r\nbreak', ''], ['', 'x,y', '\'=1+2'], ['last', '', '']];
    for (let cut = 0; cut <= csv.length; cut++) {
      for (const size of [1, 2, 7]) {
        const reader = new CsvRows();
        const rows = [...reader.push(csv.slice(0, cut))];
        for (let i = cut; i < csv.length; i += size) rows.push(...reader.push(csv.slice(i, i + size)));
        rows.push(...reader.end());
        assert.deepEqual(rows, expected, `cut at ${cut}, chunks of ${size}`);
      }
    }
    assert.deepEqual(new CsvRows().end(), []);
  });

  it('names columns, writes numbers in the amount columns, text as text', () => {
    assert.deepEqual([0, 25, 26, 51, 701, 702].map(columnName), ['A', 'Z', 'AA', 'AZ', 'ZZ', 'AAA']);
    const xml = rowXml(2, ['12.50', '-0.08', '\'=HYPERLINK("x")', 'a<b & "c"', '', 'bell\u0007', '0012'], [true, true, false, false, false, false, false]);
    assert.equal(xml, '<row r="2"><c r="A2"><v>12.50</v></c><c r="B2"><v>-0.08</v></c>'
      + '<c r="C2" t="inlineStr"><is><t xml:space="preserve">=HYPERLINK(&quot;x&quot;)</t></is></c>'
      + '<c r="D2" t="inlineStr"><is><t xml:space="preserve">a&lt;b &amp; &quot;c&quot;</t></is></c>'
      + '<c r="F2" t="inlineStr"><is><t xml:space="preserve">bell</t></is></c><c r="G2" t="inlineStr"><is><t xml:space="preserve">0012</t></is></c></row>');
    assert.match(rowXml(3, ['x1'], [true]), /t="inlineStr"/, 'a number column\'s text stays text');
  });
});

for (const { kind, skip } of kinds) {
  describe(`portal exports as XLSX (${kind})`, { skip }, () => {
    let t: TestGateway;
    const clock = new ManualClock('2030-04-01T10:00:00Z');
    const token = `portal-xlsx-${kind}`;
    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: token });
    });
    after(async () => t?.close());

    it('the fees and payments exports as one sheet each: the CSV\'s rows, amounts as numbers, formulas as text', async () => {
      const admin = adminClient(t.baseUrl, token);
      assert.equal((await admin('POST', '/admin/v1/money/fee-schedules', { merchant_id: t.merchant.id, effective_from: clock.now().toISOString(), rows: [{ operation: 'sale', percent: '1' }] })).status, 201);
      for (const [i, [amount, order]] of [['10.00', '=HYPERLINK("http://x")'], ['25.50', 'A & B <shop>']].entries()) {
        clock.set(new Date(Date.parse('2030-04-01T10:00:00Z') + i * 60_000));
        assert.equal((await sale(t, { order_amount: amount, order_id: order })).body.status, 'SETTLED');
      }
      const session = await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'finance' })).email);
      const get = (path: string) => fetch(t.baseUrl + path, { headers: { cookie: session.cookie } });

      const res = await get('/portal/v1/fees/export?format=xlsx');
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get('content-type'), XLSX_CONTENT_TYPE);
      assert.match(res.headers.get('content-disposition') ?? '', /filename="fees-2030-04-01\.xlsx"/);
      const book = Buffer.from(await res.arrayBuffer());
      assert.deepEqual([...unzip(book).keys()].sort(), ['[Content_Types].xml', '_rels/.rels', 'xl/_rels/workbook.xml.rels', 'xl/workbook.xml', 'xl/worksheets/sheet1.xml']);
      assert.match(unzip(book).get('xl/workbook.xml')!.toString(), /<sheet name="fees" sheetId="1" r:id="rId1"\/>/);
      const fees = sheetRows(book);
      assert.deepEqual(fees[0], ['created_at', 'merchant_id', 'payment_id', 'order_id', 'transaction_id', 'transaction_type', 'transaction_amount', 'event', 'fee', 'currency']);
      assert.deepEqual(fees.slice(1).map((r) => [r[3], r[6], r[7], r[8], r[9]]), [['A & B <shop>', 25.5, 'fee', 0.26, 'USD'], ['=HYPERLINK("http://x")', 10, 'fee', 0.1, 'USD']]);

      // The payments export: the same rows as its CSV (the CSV's apostrophe off, amounts as numbers).
      const csv = await (await get('/portal/v1/payments/export')).text();
      const fromCsv = csv.trim().split('\r\n').map((l) => splitCsvLine(l)!);
      const payments = sheetRows(Buffer.from(await (await get('/portal/v1/payments/export?format=xlsx')).arrayBuffer()));
      assert.equal(payments.length, fromCsv.length);
      const amountAt = fromCsv[0]!.indexOf('amount');
      for (const [i, row] of fromCsv.slice(1).entries()) {
        assert.equal(payments[i + 1]![0], row[0]);
        assert.equal(payments[i + 1]![amountAt], Number(row[amountAt]));
      }
      assert.ok(payments.some((r) => r.includes('=HYPERLINK("http://x")')));
      assert.equal((await get('/portal/v1/payments/export?format=pdf')).status, 400);
    });
  });
}
