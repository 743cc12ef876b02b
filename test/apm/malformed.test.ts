/**
 * Malformed input on both stores (D3), for S2S APM, the bank callback and the payer and sandbox pages:
 * broken encodings, wrong types, huge values, unknown ids. Each answer is a D3 body (S2S: "result": "ERROR")
 * or a page, never a 5xx.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { messages, representative, sale, saleFields, signedSale } from './support.ts';

interface Case {
  name: string;
  path?: string;
  method?: string;
  body?: string | Buffer;
  contentType?: string;
  status?: number;
  error?: string;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';
const FIELDS = representative('extra_fields', 's2s_apm');
const BOUNDARY = 'apmBoundary';

for (const { kind, skip } of await storeKinds()) {
  describe(`APM malformed input (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let sample: Record<string, string>;
    let waiting: string;
    before(async () => {
      gw = await startTestGateway(kind);
      sample = Object.fromEntries(Object.entries(signedSale(gw.merchant, saleFields(FIELDS.key))).map(([k, v]) => [k, String(v)]));
      waiting = (await sale(gw, FIELDS.key)).body.trans_id;
    });
    after(() => gw.close());

    const send = async (c: Case) => {
      const headers: Record<string, string> = {};
      if (c.contentType !== undefined) headers['content-type'] = c.contentType;
      const init: RequestInit = { method: c.method ?? 'POST', headers, redirect: 'manual' };
      if (c.body !== undefined) init.body = typeof c.body === 'string' ? c.body : new Uint8Array(c.body);
      const res = await fetch(`${gw.baseUrl}${c.path ?? '/apm/post'}`, init);
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: res.status, text, body };
    };

    const s2sCases = (): Case[] => [
      { name: 'a JSON body', body: JSON.stringify(sample), contentType: 'application/json', status: 415 },
      { name: 'a text/plain body', body: 'action=SALE', contentType: 'text/plain', status: 415 },
      { name: 'an empty form', body: '', contentType: FORM, error: 'action: This value should not be blank.' },
      { name: 'action as an array', body: 'action[]=SALE', contentType: FORM, error: 'action: This value should be of type string.' },
      { name: 'bytes that are not UTF-8', body: Buffer.concat([Buffer.from('action=SALE&order_description='), Buffer.from([0xff, 0xfe])]), contentType: FORM },
      { name: 'a NUL character', body: form({ ...sample, order_id: 'A\u0000B' }), contentType: FORM, error: 'order_id: This value is not valid.' },
      { name: 'an array where a string belongs', body: `${form({ ...sample, brand: 'x' })}&brand[]=1`, contentType: FORM, error: 'brand: This value should be of type string.' },
      { name: 'parameters as a string', body: form({ ...sample, parameters: 'x' }), contentType: FORM, error: 'parameters: This value should be of type array.' },
      { name: 'a negative amount', body: form({ ...sample, order_amount: '-1.00' }), contentType: FORM, error: 'order_amount: This value is not valid.' },
      { name: 'an amount beyond bigint', body: form({ ...sample, order_amount: '99999999999999999999.99' }), contentType: FORM, error: 'order_amount: This value is not valid.' },
      { name: 'an unknown currency', body: form({ ...sample, order_currency: 'XYZ' }), contentType: FORM, error: 'order_currency: This value is not valid.' },
      { name: 'a 37-character brand', body: form({ ...sample, brand: 'b'.repeat(37) }), contentType: FORM, error: 'brand: This value is too long. It should have 36 characters or less.' },
      { name: 'an invalid return_url', body: form({ ...sample, return_url: 'javascript:alert(1)' }), contentType: FORM, error: 'return_url: This value is not a valid URL.' },
      { name: 'an invalid payer_ip', body: form({ ...sample, payer_ip: '999.1.1.1' }), contentType: FORM, error: 'payer_ip: This value is not a valid IP address.' },
      { name: 'a member value of the wrong type', body: `${form(sample)}&parameters[${FIELDS.params[0]!.name}][x]=1`, contentType: FORM },
      { name: 'prototype keys', body: `${form(sample)}&__proto__[admin]=1&parameters[__proto__][x]=1`, contentType: FORM, status: 200 },
      { name: 'deeply nested parameters', body: `${form(sample)}&parameters${'[a]'.repeat(40)}=1`, contentType: FORM, status: 200 },
      { name: 'a trans_id that is no UUID', body: form({ action: 'GET_TRANS_STATUS', client_key: gw.merchant.key, trans_id: "1' OR '1'='1", hash: 'h' }), contentType: FORM, status: 401 },
      { name: 'an unknown client_key', body: form({ ...sample, client_key: 'nobody' }), contentType: FORM, status: 401 },
      { name: 'a body over the size limit', body: form({ ...sample, order_description: 'x'.repeat(300 * 1024) }), contentType: FORM, status: 413 },
      { name: 'multipart with a file', body: `--${BOUNDARY}\r\ncontent-disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhi\r\n--${BOUNDARY}--\r\n`, contentType: `multipart/form-data; boundary=${BOUNDARY}`, error: 'request: Files are not accepted.' },
      { name: 'multipart without a boundary', body: 'x', contentType: 'multipart/form-data' },
      { name: 'a CREDIT2VIRTUAL without parameters', body: form({ action: 'CREDIT2VIRTUAL', client_key: gw.merchant.key, brand: 'x', order_id: '1', order_amount: '1', order_currency: 'GHS', payee_first_name: 'a', payee_last_name: 'b', payee_email: 'a@b.cd', hash: 'h' }), contentType: FORM, error: 'parameters: This value should not be blank.' },
      { name: 'a bank callback without fields', path: '/apm/bank/callback', body: '', contentType: FORM },
      { name: 'a bank callback as broken JSON', path: '/apm/bank/callback', body: '{"EndToEndId"', contentType: 'application/json' },
      { name: 'a bank callback with a huge id', path: '/apm/bank/callback', body: form({ EndToEndId: 'x'.repeat(5000), TxSts: 'ACSC' }), contentType: FORM, error: 'EndToEndId: This value is too long. It should have 64 characters or less.' },
    ];

    it('answers every malformed S2S APM request with a D3 body and never a 5xx', async () => {
      for (const c of s2sCases()) {
        const res = await send(c);
        assert.ok(res.status < 500, `${c.name}: ${res.status} ${res.text}`);
        if (res.status === 200) {
          assert.equal(c.status, 200, `${c.name}: unexpected success ${res.text}`);
          continue;
        }
        assert.equal(res.status, c.status ?? 400, `${c.name}: ${res.text}`);
        assert.equal(res.body?.http_code, res.status, c.name);
        if (!c.path) assert.equal(res.body.result, 'ERROR', c.name);
        if (c.error) assert.ok(messages(res).includes(c.error), `${c.name}: ${JSON.stringify(messages(res))}`);
      }
      assert.equal(({} as Record<string, unknown>).admin, undefined);
    });

    it('answers malformed payer and sandbox page requests with a page, never a 5xx', async () => {
      const cases: Case[] = [
        { name: 'an unknown payment page', method: 'GET', path: '/pay/00000000-0000-4000-8000-000000000000', status: 404 },
        { name: 'a payment page of no UUID', method: 'GET', path: `/pay/${encodeURIComponent("x' OR 1=1 --")}`, status: 404 },
        // Fastify's router answers an over-long path parameter itself (414), as for every route.
        { name: 'a very long payment id', method: 'GET', path: `/pay/${'a'.repeat(3000)}` },
        { name: 'the status of an unknown payment', method: 'GET', path: '/pay/nope/status', status: 400 },
        { name: 'fields with a NUL', path: `/pay/${waiting}/fields`, body: form({ [FIELDS.params[0]!.name]: 'a\u0000b' }), contentType: FORM, status: 422 },
        { name: 'fields as JSON', path: `/pay/${waiting}/fields`, body: '{"x":', contentType: 'application/json', status: 400 },
        { name: 'an empty fields form', path: `/pay/${waiting}/fields`, body: '', contentType: FORM, status: 422 },
        { name: 'a hostile value in the fields', path: `/pay/${waiting}/fields`, body: form({ [FIELDS.params[0]!.name]: '<script>alert(1)</script>'.repeat(100) }), contentType: FORM },
        // The first of repeated values counts; this one is valid, so the payment goes on.
        { name: 'fields posted as an array', path: `/pay/${waiting}/fields`, body: `${FIELDS.params[0]!.name}[]=1&${FIELDS.params[0]!.name}[]=2`, contentType: FORM, status: 303 },
        { name: 'a code for a payment with no code', path: `/pay/${waiting}/code`, body: form({ code: '1'.repeat(10_000) }), contentType: FORM, status: 303 },
        { name: 'an unknown sandbox reference', method: 'GET', path: '/sandbox/apm/nope', status: 404 },
        { name: 'a decision for an unknown reference', path: '/sandbox/apm/nope/app', body: 'decision=approve', contentType: FORM, status: 404 },
        { name: 'an outbox without an address', method: 'GET', path: '/sandbox/outbox', status: 200 },
        { name: 'an outbox with a hostile address', method: 'GET', path: `/sandbox/outbox?to=${encodeURIComponent('<script>alert(1)</script>')}`, status: 200 },
        { name: 'an outbox address as an array', method: 'GET', path: '/sandbox/outbox?to[]=a&to[]=b', status: 200 },
        { name: 'outbox messages without an address', method: 'GET', path: '/sandbox/outbox/messages', status: 400 },
      ];
      for (const c of cases) {
        const res = await send(c);
        assert.ok(res.status < 500, `${c.name}: ${res.status} ${res.text.slice(0, 300)}`);
        if (c.status !== undefined) assert.equal(res.status, c.status, `${c.name}: ${res.text.slice(0, 300)}`);
        assert.ok(!res.text.includes('<script>alert(1)'), `${c.name}: echoed markup`);
      }
    });
  });
}
