/**
 * The unified decline codes as one table: every code tells the merchant something, decides a retry and advises
 * the payer with a message the payer pages have; the payer is never told the card was reported lost or stolen
 * or suspected of fraud, and a decline no other acquirer can turn is never cascaded.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DECLINES, declineAdvice, isUnifiedCode, type UnifiedCode } from '../../src/domain/declines.ts';
import { classify, declinedOutcome, type ErrorTable } from '../../src/connectors/error-codes.ts';
import { CATALOGS } from '../../src/web/i18n.ts';

const CODES = Object.keys(DECLINES) as UnifiedCode[];

describe('DECLINES', () => {
  it('every code has a merchant message, a retry decision and payer advice the pages can say', () => {
    for (const code of CODES) {
      const row = DECLINES[code];
      assert.ok(row.message.length > 0, code);
      assert.ok(['no', 'later', 'other_mid'].includes(row.retry), code);
      assert.ok(Object.hasOwn(CATALOGS.en, `decline.${row.payerAdvice}`), code);
    }
  });

  it('the payer reads "contact your bank" for lost, stolen and fraud, and those are never retried', () => {
    for (const code of ['lost_or_stolen', 'fraud_suspected'] as const) {
      assert.equal(DECLINES[code].payerAdvice, 'contactBank');
      assert.equal(DECLINES[code].retry, 'no');
    }
  });

  it('knows its own codes only', () => {
    for (const code of CODES) assert.equal(isUnifiedCode(code), true);
    for (const other of ['toString', 'hasOwnProperty', 'DECLINED', '', 42, undefined]) assert.equal(isUnifiedCode(other), false, String(other));
    assert.equal(declineAdvice('Insufficient funds', 'constructor'), 'insufficientFunds', 'an unknown code falls back to the reason');
  });

  it('a connector classifies into the row: the merchant reads its message, the raw values stay', () => {
    const table: ErrorTable = { codes: { '51': 'insufficient_funds', 'STOLEN CARD': 'lost_or_stolen' }, fallback: 'declined' };
    assert.deepEqual(classify(table, '51', 'Not sufficient funds'), {
      code: 'insufficient_funds', message: 'Insufficient funds', retry: 'later', rawCode: '51', rawMessage: 'Not sufficient funds',
    });
    assert.equal(classify(table, '99', ' stolen card ').code, 'lost_or_stolen');
    assert.deepEqual(declinedOutcome(classify(table, undefined)), { kind: 'declined', reason: 'Declined by processing', error: { code: 'declined' } });
  });
});
