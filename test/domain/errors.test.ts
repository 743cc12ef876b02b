/** The error catalog against the interface spec's Errors table and decisions D3, to the letter. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ERRORS, GatewayError, errorBody } from '../../src/domain/errors.ts';

// Rows copied from the spec's Errors table (HTTP, error_code, error_message).
const SPEC_ROWS: [keyof typeof ERRORS, number, string, string][] = [
  ['paymentDoesNotExist', 400, '101000', 'Payment does not exist.'],
  ['orderDoesNotExist', 400, '101000', 'Order does not exist.'],
  ['transactionDoesNotExist', 400, '101000', 'Transaction does not exist.'],
  ['paymentNotFound', 400, '100000', 'Payment not found.'],
  ['scheduleNotFound', 400, '100000', 'Schedule not found'],
  ['incorrectTransaction', 400, '100000', 'Incorrect transaction'],
  ['valueNotCorrect', 400, '100000', 'This value is not correct.'],
  ['voidNotAllowed', 400, '100000', 'Void is not allowed.'],
  ['sizeOutOfRange', 400, '100000', 'size should be within 1..100'],
  ['parameterDeprecated', 400, '100000', 'Parameter is deprecated'],
  ['hashInvalid', 401, '100000', 'hash: Hash is not valid.'],
  ['merchantNotFound', 401, '100000', 'merchant_key: Merchant not found.'],
  ['invalidRequest', 400, '100000', 'Request data is invalid.'],
];

describe('error catalog', () => {
  for (const [name, http, code, message] of SPEC_ROWS) {
    it(`${name}: ${http} ${code} "${message}"`, () => {
      assert.deepEqual(errorBody(new GatewayError(name)), { http_code: http, error_code: code, error_message: message });
    });
  }

  it('101000 is used only where the entity is a transaction or an order', () => {
    for (const [name, spec] of Object.entries(ERRORS)) {
      if (spec.code === '101000') assert.match(spec.message, /^(Payment|Order|Transaction) does not exist\.$/, name);
    }
  });

  it('validation errors list each field as "<path>: <message>" with the envelope code', () => {
    const body = errorBody(GatewayError.invalid([{ field: 'order.amount', message: 'This value should be greater than 0.' }, { field: 'methods[0]', message: 'x' }]));
    assert.deepEqual(body, {
      http_code: 400,
      error_code: '100000',
      error_message: 'Request data is invalid.',
      errors: [
        { error_code: '100000', error_message: 'order.amount: This value should be greater than 0.' },
        { error_code: '100000', error_message: 'methods[0]: x' },
      ],
    });
  });

  it('every entry has a string code, a 4xx or 5xx status and a message', () => {
    for (const [name, spec] of Object.entries(ERRORS)) {
      assert.equal(typeof spec.code, 'string', name);
      assert.ok(spec.http >= 400 && spec.http < 600, name);
      assert.ok(spec.message.length > 0, name);
    }
  });
});
