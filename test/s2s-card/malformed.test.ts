/**
 * Malformed S2S CARD input on both stores (D3): broken encodings, wrong types, huge values, missing fields,
 * wrong content types. Each answer is a D3 body with "result": "ERROR", never a 5xx.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { messages, saleFields, signedSale } from './support.ts';

interface Case {
  name: string;
  body: string | Buffer;
  contentType?: string;
  /** Expected HTTP status; 400 unless given. */
  status?: number;
  /** One expected entry of errors[], when the case is about a field. */
  error?: string;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S CARD malformed input (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let sample: Record<string, string>;
    before(async () => {
      gw = await startTestGateway(kind);
      sample = Object.fromEntries(Object.entries(signedSale(gw.merchant, saleFields())).map(([k, v]) => [k, String(v)]));
    });
    after(() => gw.close());

    const send = async (c: Case) => {
      const headers: Record<string, string> = {};
      if (c.contentType !== undefined) headers['content-type'] = c.contentType;
      const res = await fetch(`${gw.baseUrl}/post`, { method: 'POST', headers, body: typeof c.body === 'string' ? c.body : new Uint8Array(c.body) });
      const text = await res.text();
      return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
    };

    const FORM = 'application/x-www-form-urlencoded';
    const cases = (): Case[] => [
      { name: 'a text/plain body', body: 'action=SALE', contentType: 'text/plain', status: 415 },
      { name: 'a JSON body', body: JSON.stringify(sample), contentType: 'application/json', status: 415 },
      { name: 'an XML body', body: '<sale/>', contentType: 'application/xml', status: 415 },
      { name: 'an empty form', body: '', contentType: FORM, error: 'action: This value should not be blank.' },
      { name: 'a body without content type', body: 'action=SALE', status: 415 },
      { name: 'broken percent-encoding', body: 'action=SALE&order_id=%E0%A4%A&payer_email=%%%', contentType: FORM, error: 'payer_email: This value is not a valid email address.' },
      { name: 'bytes that are not UTF-8', body: Buffer.concat([Buffer.from('action=SALE&order_description='), Buffer.from([0xff, 0xfe, 0xc3])]), contentType: FORM, error: 'client_key: This value should not be blank.' },
      { name: 'a NUL character', body: form({ ...sample, order_id: 'A\u0000B' }), contentType: FORM, error: 'order_id: This value is not valid.' },
      { name: 'an array where a string belongs', body: `${form({ ...sample, order_id: 'x' })}&order_id[]=1&order_id[]=2`, contentType: FORM, error: 'order_id: This value should be of type string.' },
      { name: 'an object where a string belongs', body: form({ ...sample }).replace('order_amount=1.99', 'order_amount[x]=1'), contentType: FORM, error: 'order_amount: This value is not valid.' },
      { name: 'custom_data as a plain string', body: form({ ...sample, custom_data: 'x' }), contentType: FORM, error: 'custom_data: This value should be of type array.' },
      { name: 'action as an array', body: 'action[]=SALE', contentType: FORM, error: 'action: This value should be of type string.' },
      { name: 'an amount with a comma', body: form({ ...sample, order_amount: '1,99' }), contentType: FORM, error: 'order_amount: This value is not valid.' },
      { name: 'a negative amount', body: form({ ...sample, order_amount: '-1.00' }), contentType: FORM, error: 'order_amount: This value is not valid.' },
      { name: 'an amount beyond bigint', body: form({ ...sample, order_amount: '99999999999999999999.99' }), contentType: FORM, error: 'order_amount: This value is not valid.' },
      { name: 'more decimals than the currency has', body: form({ ...sample, order_amount: '1.999' }), contentType: FORM, error: 'order_amount: This value is not valid.' },
      { name: 'an unknown currency', body: form({ ...sample, order_currency: 'XYZ' }), contentType: FORM, error: 'order_currency: This value is not valid.' },
      { name: 'a 2000-character description', body: form({ ...sample, order_description: 'd'.repeat(2000) }), contentType: FORM, error: 'order_description: This value is too long. It should have 1024 characters or less.' },
      { name: 'a 1000-character hash', body: form({ ...sample, hash: 'a'.repeat(1000) }), contentType: FORM, error: 'hash: This value is too long. It should have 128 characters or less.' },
      { name: 'an invalid term_url_3ds', body: form({ ...sample, term_url_3ds: 'javascript:alert(1)' }), contentType: FORM, error: 'term_url_3ds: This value is not a valid URL.' },
      { name: 'a callback_url over 255 characters', body: form({ ...sample, callback_url: `https://a.example/${'p'.repeat(250)}` }), contentType: FORM, error: 'callback_url: This value is too long. It should have 255 characters or less.' },
      { name: 'an invalid payer_ip', body: form({ ...sample, payer_ip: '999.1.1.1' }), contentType: FORM, error: 'payer_ip: This value is not a valid IP address.' },
      { name: 'auth other than Y or N', body: form({ ...sample, auth: 'yes' }), contentType: FORM, error: 'auth: The value you selected is not a valid choice.' },
      { name: 'letters in the card number', body: form({ ...sample, card_number: '4111-1111-1111-1111' }), contentType: FORM, error: 'card_number: Invalid card number.' },
      { name: 'month 13', body: form({ ...sample, card_exp_month: '13' }), contentType: FORM, error: 'card_exp_month: This value is not valid.' },
      { name: 'prototype keys', body: `${form(sample)}&__proto__[admin]=1&constructor[prototype][x]=1`, contentType: FORM, status: 200 },
      { name: 'deeply nested custom_data', body: `${form(sample)}&custom_data${'[a]'.repeat(40)}=1`, contentType: FORM, status: 200 },
      { name: 'a trans_id that is no UUID', body: form({ action: 'CAPTURE', client_key: gw.merchant.key, trans_id: "1' OR '1'='1", hash: 'h' }), contentType: FORM, status: 400 },
      { name: 'a body over the size limit', body: form({ ...sample, order_description: 'x'.repeat(300 * 1024) }), contentType: FORM, status: 413 },
      { name: 'multipart with a file', body: multipartBody([['action', 'SALE']], true), contentType: `multipart/form-data; boundary=${BOUNDARY}`, error: 'request: Files are not accepted.' },
      { name: 'multipart with a broken boundary', body: `--${BOUNDARY}\r\ncontent-disposition: form-data; name="action"\r\n\r\nSALE`, contentType: `multipart/form-data; boundary=${BOUNDARY}` },
      { name: 'multipart without a boundary', body: 'x', contentType: 'multipart/form-data' },
    ];

    it('answers every malformed request with a D3 S2S body and never a 5xx', async () => {
      for (const c of cases()) {
        const res = await send(c);
        assert.ok(res.status < 500, `${c.name}: ${res.status} ${res.text}`);
        if (res.status === 200) {
          assert.equal(c.status, 200, `${c.name}: unexpected success ${res.text}`);
          continue;
        }
        assert.equal(res.status, c.status ?? 400, `${c.name}: ${res.text}`);
        assert.equal(res.body.result, 'ERROR', c.name);
        assert.equal(res.body.http_code, res.status, c.name);
        assert.equal(typeof res.body.error_code, 'string', c.name);
        assert.equal(typeof res.body.error_message, 'string', c.name);
        if (c.error) assert.ok(messages(res).includes(c.error), `${c.name}: ${JSON.stringify(messages(res))}`);
      }
    });

    it('keeps the prototype untouched by bracket keys', () => {
      assert.equal(({} as Record<string, unknown>).admin, undefined);
    });
  });
}

const BOUNDARY = 'xYzBoundary';

function multipartBody(fields: [string, string][], withFile: boolean): string {
  const parts = fields.map(([k, v]) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  if (withFile) parts.push(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="f"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\nhello\r\n`);
  return `${parts.join('')}--${BOUNDARY}--\r\n`;
}
