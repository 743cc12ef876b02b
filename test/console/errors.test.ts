/** Errors in words in the console (issue 31 item 9): the API's field paths read as the form names its fields. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldLabel, inWords } from '../../console/src/errors.ts';

describe('console errors in words', () => {
  it('turns a D3 field path into the form\'s labels', () => {
    assert.equal(inWords("rules[0].when.card_countries[0]: 'XX' is not a country code."), "Rule 1, Card countries: 'XX' is not a country code.");
    assert.equal(inWords('rules[2].then.shares[1].weight: This value should be between 1 and 100.'), 'Rule 3, Share 2, Weight: This value should be between 1 and 100.');
    assert.equal(inWords('payer_retries.max_attempts: This value should be between 1 and 20.'), 'Payer retries, Attempts per session: This value should be between 1 and 20.');
    assert.equal(inWords('allowed_source_addresses[3]: This value is not a valid IP address or CIDR block.'), 'Allowed source addresses: This value is not a valid IP address or CIDR block.');
  });

  it('leaves a message without a field path as it is', () => {
    assert.equal(inWords('Authorization: Your role does not permit this action.'), 'Authorization: Your role does not permit this action.');
    assert.equal(inWords('The gateway answered 500.'), 'The gateway answered 500.');
  });

  it('names what is inside a field relative to it; an item of a list is the list', () => {
    assert.equal(fieldLabel('when.card_countries[0]'), 'Card countries');
    assert.equal(fieldLabel('[0]'), '');
  });
});
