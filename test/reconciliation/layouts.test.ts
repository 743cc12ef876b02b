/**
 * The report layouts (issue 28): Adyen's Settlement details report read by its published columns (the lines of
 * Adyen's own sample), its record types, a CSV mapping profile's decimal and date formats, and each problem of a
 * line named with its line number.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADYEN_COLUMNS, layoutOf, checkProfile, PROFILE_EXAMPLE, type CsvProfile } from '../../src/domain/reconciliation/layouts.ts';
import { readDate, readDecimal, splitCsvLine, type ReportRow } from '../../src/domain/reconciliation/report.ts';
import { addToTotals, batchFlags, type BatchTotals } from '../../src/domain/reconciliation/batch.ts';
import { expectedFee, feeDifference } from '../../src/domain/reconciliation/buy-rates.ts';
import { parseFeeRows } from '../../src/domain/ledger/fees.ts';

const HEADER = ADYEN_COLUMNS.join(',');
// Two lines of Adyen's published sample (a settled GBP payment, a EUR chargeback).
const SETTLED = 'TestCompany,TestMerchant,1813702551707653,3vpzf7,visa,2013-06-03 11:26:49,CET,Settled,1713702551795048,GBP,,5.00,1,GBP,,4.88,,0.04,0.01,0.07,visaclassic,,,,,,,,,';
const CHARGEBACK = 'TestCompany,TestMerchant,1313642467023511,324959451,visa,2013-03-26 22:37:26,CET,Chargeback,2313642467170922,EUR,349.99,,1,EUR,357.49,,7.5,,,,visaclassic,,,,,,,,,';

function read(lines: string[], profile: CsvProfile | null = null, sep = ','): (ReportRow | { line: number; message: string }[])[] {
  const layout = layoutOf(splitCsvLine(lines[0]!, sep)!, profile);
  assert.ok(layout, 'a known layout');
  return lines.slice(1).map((l, i) => layout.read(splitCsvLine(l, sep)!, i + 2));
}

describe('Adyen Settlement details report', () => {
  it('reads the sample lines: gross, net, fees by their parts, the date in its zone', () => {
    const [settled, chargeback] = read([HEADER, SETTLED, CHARGEBACK]) as ReportRow[];
    assert.equal(settled!.kind, 'settled');
    assert.equal(settled!.acquirerRef, '1813702551707653');
    assert.equal(settled!.merchantRef, '3vpzf7');
    assert.equal(settled!.modificationRef, '1713702551795048');
    assert.equal(settled!.currency, 'GBP');
    assert.equal(settled!.amount, 500n);
    assert.equal(settled!.net, 488n);
    assert.equal(settled!.fee, 12n, 'markup 0.04 + scheme fees 0.01 + interchange 0.07');
    assert.equal(settled!.interchange, 7n);
    assert.equal(settled!.bookedAt.toISOString(), '2013-06-03T10:26:49.000Z', 'CET is UTC+1');
    assert.equal(chargeback!.kind, 'chargeback');
    assert.equal(chargeback!.amount, 34999n);
    assert.equal(chargeback!.net, -35749n);
    assert.equal(chargeback!.fee, 750n);
  });

  it('names each problem of a line: unknown type, unparseable amount and date, unknown currency', () => {
    const bad = [
      SETTLED.replace('Settled', 'Setled'),
      SETTLED.replace(',5.00,', ',5,00,'),
      SETTLED.replace('2013-06-03 11:26:49', '03/06/2013'),
      SETTLED.replace(/,GBP,/g, ',GBX,'),
    ];
    const out = read([HEADER, ...bad]);
    assert.match((out[0] as { message: string }[])[0]!.message, /Type "Setled"/);
    assert.equal((out[0] as { line: number }[])[0]!.line, 2);
    assert.ok(Array.isArray(out[1]), 'a comma in an amount shifts the columns: refused');
    assert.match(JSON.stringify(out[2]), /Creation Date/);
    assert.match(JSON.stringify(out[3]), /GBX/);
  });

  it('an unknown layout is none', () => {
    assert.equal(layoutOf(['a', 'b'], null), undefined);
  });
});

describe('CSV mapping profile', () => {
  it('reads its columns, decimals (1.234,56) and dates (DD.MM.YYYY, CET)', () => {
    assert.deepEqual(checkProfile(PROFILE_EXAMPLE), []);
    const [sale, fee] = read([
      'Transaction ID;Order Ref;Amount;Currency;Type;Fee;Value Date;Batch',
      'T-1;pay-1;1.234,56;EUR;SALE;12,35;02.06.2030;B7',
      'F-1;;10,00;EUR;FEE;;02.06.2030 10:00;B7',
    ], PROFILE_EXAMPLE, ';') as ReportRow[];
    assert.equal(sale!.amount, 123456n);
    assert.equal(sale!.fee, 1235n);
    assert.equal(sale!.net, 123456n - 1235n);
    assert.equal(sale!.bookedAt.toISOString(), '2030-06-01T23:00:00.000Z');
    assert.equal(fee!.kind, 'fee');
    assert.equal(fee!.net, -1000n);
  });

  it('refuses a profile missing a column, with an unknown format or kind', () => {
    const problems = checkProfile({ ...PROFILE_EXAMPLE, columns: { ...PROFILE_EXAMPLE.columns, amount: '' }, decimal: 'roman' as never, types: { X: 'gift' as never } });
    assert.deepEqual(problems.map((p) => p.field), ['csv.columns.amount', 'csv.decimal', 'csv.types.X']);
  });
});

describe('readers', () => {
  it('decimals: exact minor units, never floats', () => {
    assert.equal(readDecimal('0.1', 'EUR'), 10n);
    assert.equal(readDecimal('1,234.5', 'EUR', 'comma_thousands_point'), 123450n);
    assert.equal(readDecimal('1000', 'JPY'), 1000n);
    assert.equal(readDecimal('1.001', 'EUR'), undefined, 'more digits than the currency has');
    assert.equal(readDecimal('-2.50', 'EUR', 'point', true), -250n);
    assert.equal(readDecimal('12', 'EUR', 'minor_units'), 12n);
  });
  it('dates: invalid days refused', () => {
    assert.equal(readDate('2030-02-30', 'YYYY-MM-DD'), undefined);
    assert.equal(readDate('2030-06-01T10:00:00+02:00', 'iso')!.toISOString(), '2030-06-01T08:00:00.000Z');
  });
  it('quoted CSV fields', () => {
    assert.deepEqual(splitCsvLine('a,"b,c","d ""e"""'), ['a', 'b,c', 'd "e"']);
    assert.equal(splitCsvLine('a,"b'), undefined);
  });
});

describe('batch totals and the fee check', () => {
  it('flags a batch whose net, announced payout and bank credit disagree', () => {
    const totals: BatchTotals = new Map();
    addToTotals(totals, { kind: 'settled', netCurrency: 'EUR', net: 970n, fee: 30n, amount: 1000n });
    addToTotals(totals, { kind: 'fee', netCurrency: 'EUR', net: -20n, fee: 20n, amount: 20n });
    addToTotals(totals, { kind: 'payout', netCurrency: 'EUR', net: -950n, fee: 0n, amount: 950n });
    assert.deepEqual(batchFlags(totals, new Map()), []);
    assert.deepEqual(batchFlags(totals, new Map([['EUR', 949n]])), ['EUR: the bank credited 9.49, the announced payout is 9.50 (difference -0.01).']);
    addToTotals(totals, { kind: 'adjustment', netCurrency: 'EUR', net: -5n, fee: 0n, amount: 5n });
    assert.match(batchFlags(totals, new Map())[0]!, /nets 9.45, the announced payout is 9.50/);
  });

  it('the fee against the buy rates: blended, and interchange++ with the reported interchange and scheme fees', () => {
    const parsed = parseFeeRows([{ operation: 'sale', method: 'visa', region: 'domestic', currency: 'GBP', percent: '1.5', fixed: '0.05' }]);
    assert.ok('rows' in parsed);
    const [row] = read([HEADER, SETTLED]) as ReportRow[];
    const blended = expectedFee({ mode: 'blended', rows: parsed.rows }, row!, { method: 'visa', region: 'domestic' });
    assert.equal(blended, 13n, '0.05 + 1.5 % of 5.00 (0.075 rounds half up to 0.08)');
    assert.deepEqual(feeDifference(row!, blended), { field: 'fee', ours: '0.13', theirs: '0.12', delta: -1n });
    const icpp = expectedFee({ mode: 'interchange_plus_plus', rows: parsed.rows }, row!, { method: 'visa', region: 'domestic' });
    assert.equal(icpp, 13n + 7n + 1n);
    assert.equal(expectedFee({ mode: 'blended', rows: parsed.rows }, row!, { method: 'visa', region: 'international' }), undefined, 'no rate for it: not checked');
  });
});
