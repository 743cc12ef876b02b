/**
 * The provider kinds of issue 17 item 8, end to end on both stores: an operator configures an `apm-provider`
 * MID through the admin API (settings, credentials sealed) with an account the sandbox provider issued over
 * HTTP; the merchant pays through S2S APM (or Checkout for the mobile-money payin) with signed requests; the
 * gateway's connector calls the sandbox provider over HTTP, which checks each kind's mechanics on the wire;
 * the payer acts on the provider's pages; the merchant gets signed callbacks at a real listener.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { bech32 } from 'bech32';
import cashaddr from 'cashaddrjs';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import { operatorWithRole, type AdminCall } from '../admin/support.ts';
import { callbackHash, followUp, representative, sale } from './support.ts';
import { ProviderApmConnector } from '../../src/connectors/apm-provider/provider-apm.ts';
import { NodeHttpPort } from '../../src/connectors/http.ts';
import { Secret } from '../../src/domain/secret.ts';
import { newId } from '../../src/domain/ids.ts';
import type { ApmInitiateRequest } from '../../src/connectors/apm-types.ts';
import { getPayment } from '../../src/store/payments-repo.ts';
import { merchantWithProvider, providerAccount, providerUrl as providerUrlOf } from './provider-support.ts';

const REDIRECT = representative('redirect', 's2s_apm');


/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as the BR Code standard checks it. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    for (let bit = 7; bit >= 0; bit--) {
      const top = ((crc >> 15) & 1) ^ ((byte >> bit) & 1);
      crc = ((crc << 1) & 0xffff) ^ (top ? 0x1021 : 0);
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

for (const { kind, skip } of await storeKinds()) {
  describe(`APM provider kinds over HTTP (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    let admin: AdminCall;
    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, { workers: true, notificationUrl: listener.url });
      admin = (await operatorWithRole(gw, 'admin')).call;
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    const providerUrl = () => providerUrlOf(gw);
    const account = () => providerAccount(gw);
    const merchantWith = (providerKind: string, settings: Record<string, unknown> = {}, credentials?: Record<string, string>, mid: Record<string, unknown> = {}) =>
      merchantWithProvider(gw, admin, providerKind, { settings, credentials, mid, notificationUrl: listener.url });

    const get = async (url: string) => {
      const res = await fetch(new URL(url, gw.baseUrl), { redirect: 'manual' });
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    };
    const post = async (url: string, fields: Record<string, string>) => {
      const res = await fetch(new URL(url, gw.baseUrl), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    };
    const status = async (m: TestMerchant, transId: string) => (await followUp(gw, 'GET_TRANS_STATUS', transId, {}, m)).body;
    const settledCallback = async (m: TestMerchant, transId: string, wanted = 'SETTLED') => {
      const [cb] = await listener.waitForMatching((c) => c.fields.trans_id === transId && c.fields.status === wanted, 1);
      assert.ok(cb);
      assert.equal(cb.fields.hash, callbackHash(cb.raw, m.password));
      return cb;
    };
    /**
     * Until the payment is decided, read from the store: nothing asks the provider on the merchant's behalf, so only
     * the provider's notification (and the status call it triggers) can have decided it.
     */
    const decidedByNotification = async (transId: string) => {
      for (const until = Date.now() + 15_000; Date.now() < until;) {
        const p = await getPayment(gw.store.db, transId);
        if (p && p.status !== 'redirect') return p;
        await new Promise((r) => setTimeout(r, 100));
      }
      return getPayment(gw.store.db, transId);
    };
    /** Until the provider's notification and the status call have settled the payment. */
    const eventually = async (m: TestMerchant, transId: string, wanted: string) => {
      for (const until = Date.now() + 15_000; (await status(m, transId)).status !== wanted && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
      return status(m, transId);
    };

    it('the admin API checks an apm-provider MID against its kind, and lists the connector with its schemas', async () => {
      const m = await gw.addMerchant();
      const create = (settings: Record<string, unknown>, credentials: Record<string, string>) =>
        admin('POST', `/admin/v1/merchants/${m.id}/mids`, { connector: 'apm-provider', settings: { base_url: providerUrl(), ...settings }, credentials });
      const errors = async (settings: Record<string, unknown>, credentials: Record<string, string>) => {
        const res = await create(settings, credentials);
        assert.equal(res.status, 400, res.text);
        return (res.body.errors as { error_message: string }[]).map((e) => e.error_message);
      };
      assert.match((await errors({ kind: 'carrier-pigeon' }, { api_key: 'k' }))[0]!, /^settings\.kind: /);
      assert.deepEqual(await errors({ kind: 'header-key' }, { api_key: 'k', api_secret: 's' }), ['settings.methods: This value should not be blank.']);
      for (const methods of [['card'], ['mail-payout'], ['no-such-method']]) {
        assert.deepEqual(await errors({ kind: 'header-key', methods }, { api_key: 'k', api_secret: 's' }), ['settings.methods: The value you selected is not a valid choice.'], methods[0]);
      }
      const ed25519 = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      assert.deepEqual(await errors({ kind: 'reference-auth' }, { api_key: 'k', private_key: ed25519 }), ['credentials.private_key: This value should be a private key of type rsa or ec.']);
      assert.deepEqual(await errors({ kind: 'pix-payin' }, { api_key: 'k' }), ['credentials.api_secret: This value should not be blank.']);
      assert.deepEqual(await errors({ kind: 'voucher-partner' }, { api_key: 'k', private_key: 'not a key' }), ['credentials.private_key: This value is not a valid PEM private key.']);
      assert.deepEqual(await errors({ kind: 'crypto-fiat', crypto_currency: 'USDT' }, { api_key: 'k', api_secret: 's' }), ['settings.rates: This value should not be blank.']);
      assert.equal((await create({ kind: 'pix-payin' }, { api_key: 'k', api_secret: 's' })).status, 201);
      const listed = await admin('GET', '/admin/v1/connectors');
      const entry = (listed.body.connectors as { name: string; settings_schema: { properties: Record<string, unknown> } }[]).find((c) => c.name === 'apm-provider');
      assert.ok(entry?.settings_schema.properties.kind);
    });

    it('header-key: X-API-Key and X-API-Secret on every call; the payer pays on the provider page, the notification makes the gateway ask', async () => {
      const m = await merchantWith('header-key', { methods: [REDIRECT.key] });
      const res = await sale(gw, REDIRECT.key, {}, m);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      assert.match(res.body.redirect_url, /\/sandbox\/apm\/sbxapm_/);
      const paid = await post(new URL(res.body.redirect_url).pathname, { decision: 'pay' });
      assert.equal(paid.status, 303);
      assert.equal((await decidedByNotification(res.body.trans_id))?.status, 'settled');
      assert.equal((await status(m, res.body.trans_id)).status, 'SETTLED');
      await settledCallback(m, res.body.trans_id);
    });

    it('a forged provider notification settles nothing: the gateway asks the provider, which still waits', async () => {
      const m = await merchantWith('header-key', { methods: [REDIRECT.key] });
      const res = await sale(gw, REDIRECT.key, {}, m);
      const forged = await gw.postJson(`/apm/provider/notify/${res.body.trans_id}`, { id: 'x', status: 'executed' });
      assert.equal(forged.status, 200, forged.text);
      assert.deepEqual(forged.body, { result: 'OK', trans_id: res.body.trans_id, status: 'REDIRECT' });
      assert.equal((await getPayment(gw.store.db, res.body.trans_id))?.status, 'redirect');
      const unknown = await gw.postJson(`/apm/provider/notify/${newId()}`, {});
      assert.deepEqual([unknown.status, unknown.body.error_message], [404, 'Not found.']);
      // A payment of the sandbox engine (no provider MID) has no provider to ask.
      const plain = await sale(gw, REDIRECT.key);
      assert.equal((await gw.postJson(`/apm/provider/notify/${plain.body.trans_id}`, {})).status, 404);
    });

    it('header-key: a wrong API secret is refused on the wire and the SALE is declined with the provider\'s reason', async () => {
      const acc = await account();
      const m = await merchantWith('header-key', { methods: [REDIRECT.key] }, { api_key: acc.api_key, api_secret: 'not-the-secret' });
      const res = await sale(gw, REDIRECT.key, {}, m);
      assert.equal(res.body.status, 'DECLINED', res.text);
      assert.equal(res.body.decline_reason, 'Authorization: Provider credentials are not valid');
      // The provider itself refuses a call without the headers.
      const bare = await fetch(`${providerUrl()}/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ public_id: 'x', amount: '1.00', currency: 'EUR' }) });
      assert.equal(bare.status, 401);
      // Bad input is a D3 400, never a 5xx (a NUL cannot be stored).
      const nul = await fetch(`${providerUrl()}/payments`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': acc.api_key, 'x-api-secret': acc.api_secret },
        body: JSON.stringify({ public_id: 'x', amount: '1.00', currency: 'EUR', description: 'a\u0000b' }),
      });
      assert.equal(nul.status, 400);
      assert.deepEqual(await bare.json(), { http_code: 401, error_code: '100000', error_message: 'Authorization: Provider credentials are not valid.' });
    });

    it('PIX payin answers qr_code_id, base_64_image and pix_copy_and_paste, handed to the merchant; the payer pays in the app', async () => {
      const m = await merchantWith('pix-payin', { branch_identifier: '0001' }, undefined, { currencies: ['BRL'] });
      // The MID's currencies route: a EUR order is not this provider's, and goes to the sandbox engine.
      const elsewhere = await sale(gw, 'pix-payin', { order_currency: 'EUR', parameters: { fine: '0', type_fine: 'NONE' } }, m);
      assert.equal(elsewhere.body.result, 'REDIRECT', elsewhere.text);
      assert.equal(elsewhere.body.redirect_params.qr_code_id, undefined);
      const res = await sale(gw, 'pix-payin', { order_currency: 'BRL', parameters: { fine: '0', type_fine: 'NONE', debtor_name: 'Maria Souza' } }, m);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      const p = res.body.redirect_params;
      assert.match(p.qr_code_id, /^sbxapm_/);
      assert.deepEqual([...Buffer.from(p.base_64_image, 'base64').subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG image');
      // EMV BR Code: payload format 01, the Pix GUI, amount 12.50 (tag 54, length 05), CRC16-CCITT of the rest.
      assert.match(p.pix_copy_and_paste, /^000201.*br\.gov\.bcb\.pix.*540512\.50.*6304[0-9A-F]{4}$/);
      assert.equal(p.pix_copy_and_paste.slice(-4), crc16(p.pix_copy_and_paste.slice(0, -4)));
      assert.equal(Buffer.from(p.qr_code, 'base64').toString('utf8'), p.pix_copy_and_paste);
      assert.equal((await status(m, res.body.trans_id)).status, 'PENDING');
      await post(`/sandbox/apm/${p.qr_code_id}/app`, { decision: 'pay' });
      assert.equal((await eventually(m, res.body.trans_id, 'SETTLED')).status, 'SETTLED');
      await settledCallback(m, res.body.trans_id);
    });

    it('crypto address: bech32 gives a bech32 segwit address for BTC and a cash address for BCH; network_type tron for USDT', async () => {
      const m = await merchantWith('crypto-address');
      const addressOf = async (params: Record<string, string>) => {
        const res = await sale(gw, 'awcc', { parameters: params }, m);
        assert.equal(res.body.result, 'REDIRECT', res.text);
        const page = await get(new URL(res.body.redirect_url).pathname);
        return page.text;
      };
      const btc = /\b(bc1[02-9ac-hj-np-z]+)\b/.exec(await addressOf({ crypto_type: 'BTC', bech32: 'true' }))![1]!;
      const decoded = bech32.decode(btc);
      assert.equal(decoded.prefix, 'bc');
      assert.equal(decoded.words[0], 0, 'segwit version 0');
      assert.equal(bech32.fromWords(decoded.words.slice(1)).length, 20);
      const legacy = await addressOf({ crypto_type: 'BTC' });
      assert.doesNotMatch(legacy, /\bbc1/);
      assert.match(legacy, /\b1[1-9A-HJ-NP-Za-km-z]{25,34}\b/);
      const bch = /(bitcoincash:q[02-9ac-hj-np-z]+)/.exec(await addressOf({ crypto_type: 'BCH', bech32: 'true' }))![1]!;
      assert.equal(cashaddr.decode(bch).type, 'P2PKH');
      assert.match(await addressOf({ crypto_type: 'USDT', network_type: 'tron' }), /\bT[1-9A-HJ-NP-Za-km-z]{33}\b/);
      assert.match(await addressOf({ crypto_type: 'USDT' }), /\b0x[0-9a-f]{40}\b/);
    });

    it('fiat-to-crypto converts by the MID\'s configured rate', async () => {
      const m = await merchantWith('crypto-fiat', { crypto_currency: 'USDT', rates: { EUR: '1.08' } });
      const res = await sale(gw, 'crypto-fiat', { order_amount: '12.50' }, m);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      const page = await get(new URL(res.body.redirect_url).pathname);
      assert.match(page.text, /13\.500000 USDT/);
      // The payer sends the coins (the sandbox wallet): the provider notifies, the gateway asks and settles.
      const ref = /href="\/sandbox\/apm\/([^"/]+)\/app"/.exec(page.text)![1]!;
      await post(`/sandbox/apm/${ref}/app`, { decision: 'pay' });
      assert.equal((await eventually(m, res.body.trans_id, 'SETTLED')).status, 'SETTLED');
      await settledCallback(m, res.body.trans_id);
      const none = await sale(gw, 'crypto-fiat', { order_currency: 'GBP' }, m);
      assert.equal(none.body.decline_reason, 'No conversion rate from GBP to USDT');
    });

    it('reference and authorization: token call, Create reference, Create payment; a key of another account gets no token', async () => {
      const m = await merchantWith('reference-auth');
      const res = await sale(gw, 'reference-auth', {}, m);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      await post(new URL(res.body.redirect_url).pathname, { decision: 'pay' });
      assert.equal((await eventually(m, res.body.trans_id, 'SETTLED')).status, 'SETTLED');
      await settledCallback(m, res.body.trans_id);
      const mine = await account();
      const other = await account();
      const forged = await merchantWith('reference-auth', {}, { api_key: mine.api_key, private_key: other.private_key });
      const refused = await sale(gw, 'reference-auth', {}, forged);
      assert.equal(refused.body.decline_reason, 'Authorization refused by the provider');
      // The provider's own checks, as a client of it: no call without a token; Create reference's public id is at most 40.
      const json = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      assert.equal((await fetch(`${providerUrl()}/reference-auth/references`, json({}, { authorization: 'nope' }))).status, 401);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createSign('sha256').update(`${mine.api_key}.${timestamp}`).sign(mine.private_key, 'base64');
      const issued = await fetch(`${providerUrl()}/reference-auth/token`, json({ api_key: mine.api_key, timestamp, signature }));
      const { access_token: token } = (await issued.json()) as { access_token: string };
      const tooLong = await fetch(`${providerUrl()}/reference-auth/references`, json({ amount: 10.5, public_id: 'x'.repeat(41), single: 'yes' }, { authorization: token }));
      assert.equal(tooLong.status, 400);
      assert.deepEqual(((await tooLong.json()) as { errors: { error_message: string }[] }).errors.map((e) => e.error_message),
        ['public_id: This value is too long. It should have 40 characters or less.', 'single: This value should be of type bool.']);
      const ok = await fetch(`${providerUrl()}/reference-auth/references`, json({ amount: 10.5, public_id: 'x'.repeat(40), single: false }, { authorization: token }));
      assert.equal(ok.status, 201);
      assert.equal(((await ok.json()) as { single: boolean }).single, false, 'a recurring reference');
    });

    it('identity transfer splits customer.name into first and last name for the provider', async () => {
      const m = await merchantWith('identity-transfer');
      const res = await sale(gw, 'identity-transfer', { payer_first_name: 'Maria', payer_last_name: 'da Silva' }, m);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      // What the provider received, read back from it as the account holder.
      const ref = new URL(res.body.redirect_url).pathname.split('/').at(-1)!;
      const seen = await fetch(`${providerUrl()}/payments/${ref}`, { headers: { 'x-api-key': m.acc.api_key, 'x-api-secret': m.acc.api_secret } });
      const body = (await seen.json()) as { first_name: string; last_name: string };
      assert.deepEqual([body.first_name, body.last_name], ['Maria', 'da Silva']);
      await post(new URL(res.body.redirect_url).pathname, { decision: 'pay' });
      assert.equal((await eventually(m, res.body.trans_id, 'SETTLED')).status, 'SETTLED');
    });

    it('payer challenge: the challengeId request with its eight fields, then the code sent to the phone', async () => {
      const m = await merchantWith('payer-challenge');
      const phone = `+3816${String(Date.now()).slice(-8)}`;
      const res = await sale(gw, 'payer-challenge', { payer_phone: phone, payer_address: '1 Main St', payer_city: 'Belgrade', payer_zip: '11000' }, m);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      const outbox = await (await fetch(`${gw.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(phone)}`)).json() as { messages: { body: string }[] };
      const code = /(\d{6})/.exec(outbox.messages[0]!.body)![1]!;
      await post(`/pay/${res.body.trans_id}/code`, { code });
      assert.equal((await status(m, res.body.trans_id)).status, 'SETTLED');
      await settledCallback(m, res.body.trans_id);
      // The provider refuses a challenge request that lacks any of the eight fields.
      const acc = await account();
      const partial = await fetch(`${providerUrl()}/challenges`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': acc.api_key, 'x-api-secret': acc.api_secret }, body: JSON.stringify({ phone, email: 'a@b.c' }),
      });
      assert.equal(partial.status, 400);
      assert.equal(((await partial.json()) as { errors: unknown[] }).errors.length, 6);
      // A challenge pays one payment, even when two arrive together.
      const keyed = { 'content-type': 'application/json', 'x-api-key': acc.api_key, 'x-api-secret': acc.api_secret };
      const full = { phone, email: 'a@b.c', first_name: 'Jane', last_name: 'Roe', country: 'RS', address: '1 Main St', city: 'Belgrade', zip: '11000' };
      const { challengeId } = (await (await fetch(`${providerUrl()}/challenges`, { method: 'POST', headers: keyed, body: JSON.stringify(full) })).json()) as { challengeId: string };
      const pay = () => fetch(`${providerUrl()}/payments`, { method: 'POST', headers: keyed, body: JSON.stringify({ public_id: `p-${Date.now()}`, amount: '1.00', currency: 'EUR', challengeId }) });
      const statuses = (await Promise.all([pay(), pay()])).map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 400]);
    });

    it('card by bank: the provider offers the payer an account list; the payer picks one and pays', async () => {
      const m = await merchantWith('card-by-bank');
      let res = await sale(gw, 'card-by-bank', {}, m);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      const list = await get(res.body.redirect_url);
      const accounts = [...list.text.matchAll(/name="account" value="([^"]+)"/g)].map((x) => x[1]);
      assert.equal(accounts.length, 3);
      assert.match(list.text, /name="beneficiary" required/);
      const picked = await post(new URL(res.body.redirect_url).pathname, { decision: 'pay', beneficiary: 'Jane Roe', account: accounts[1]! });
      assert.equal(picked.status, 303);
      assert.equal((await eventually(m, res.body.trans_id, 'SETTLED')).status, 'SETTLED');
      res = await sale(gw, 'card-by-bank', {}, m);
      await post(new URL(res.body.redirect_url).pathname, { decision: 'cancel' });
      assert.equal((await eventually(m, res.body.trans_id, 'DECLINED')).status, 'DECLINED');
    });

    it('voucher partner: signed Initiate, its notification on our endpoint then a status call; a data mismatch ends in "Transaction does not exist"', async () => {
      // PartnerId per currency, language and domain from the merchant's connector options of the admin panel;
      // the MID holds the private key (its own api_key is not the partner's id).
      const acc = await account();
      const m = await merchantWith('voucher-partner', {}, { api_key: 'mid-key-not-the-partner', private_key: acc.private_key });
      const options = await admin('PATCH', `/admin/v1/merchants/${m.id}/settings`, { connector_options: { voucher_partner: { partner_ids: { EUR: acc.api_key }, language: 'pt-BR', domain: 'shop.example' } } });
      assert.equal(options.status, 200, options.text);
      const payer = { PayerId: `u-${Date.now()}`, PayerFirstName: 'Jane', PayerLastName: 'Roe', PayerBirthDate: '1990-04-01' };
      const res = await sale(gw, 'voucher-partner', { parameters: { ...payer, voucher_pin: '1234' } }, m);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      const partnerPage = await get(res.body.redirect_url);
      assert.equal(partnerPage.status, 303);
      await post(partnerPage.location!, { decision: 'pay' }); // the payer does not follow the redirect back
      assert.equal((await decidedByNotification(res.body.trans_id))?.status, 'settled', 'the partner\'s notification, then the status call');
      await settledCallback(m, res.body.trans_id);

      // A request whose Signature does not verify is refused by the partner.
      const forged = await fetch(`${providerUrl()}/voucher/initiate`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ PartnerId: acc.api_key, ...payer, PublicId: 'p-1', Amount: '1.00', Currency: 978, PayType: 0, PayMethod: 2, CallbackUrl: 'https://x.example', Language: 'en', Signature: Buffer.from('forged').toString('base64') }),
      });
      assert.equal(forged.status, 401);

      const mismatch = await sale(gw, 'voucher-partner', { parameters: { ...payer, PayerLastName: 'Other', voucher_pin: '1234' } }, m);
      assert.equal(mismatch.body.result, 'REDIRECT', mismatch.text);
      const popup = await get(mismatch.body.redirect_url);
      assert.match(popup.text, /role="alertdialog"/);
      assert.match(popup.text, /<html lang="pt-BR">/, 'the Language of the merchant\'s connector options reached the partner');
      const decline = /id="decline" href="([^"]+)"/.exec(popup.text)![1]!;
      assert.equal(new URL(decline).pathname, `/pay/${mismatch.body.trans_id}`);
      await get(decline); // the payer lands on DeclineUrl: the gateway asks the partner
      const after = await status(m, mismatch.body.trans_id);
      assert.deepEqual([after.status, after.decline_reason], ['DECLINED', 'Transaction does not exist']);
      await settledCallback(m, mismatch.body.trans_id, 'DECLINED');
    });

    it('finds an initiation whose answer was lost by its public id (header-key kinds), as initiate answered it', async () => {
      const acc = await account();
      const http = new NodeHttpPort();
      const connector = new ProviderApmConnector(http, {
        id: newId(), settings: { kind: 'pix-payin', base_url: providerUrl() }, descriptor: null,
        credentials: new Secret({ api_key: acc.api_key, api_secret: acc.api_secret }),
      });
      const req: ApmInitiateRequest = {
        paymentId: newId(), method: 'pix-payin', methodKind: 'PIX payin', experience: 'qr', intent: 'sale', amount: 1000n, currency: 'BRL',
        orderId: 'O-1', description: 'd', merchantName: 'Shop', payer: { email: 'success@gmail.com' }, params: { fine: '0' }, options: {}, returnUrl: 'https://shop.example/r',
      };
      try {
        assert.equal(await connector.inquire(req), undefined, 'nothing before the create call arrived');
        const first = await connector.initiate(req);
        const again = await connector.inquire(req);
        assert.equal(first.kind, 'action');
        assert.equal(again?.kind, 'action');
        if (first.kind !== 'action' || again?.kind !== 'action') return;
        assert.equal(again.reference, first.reference);
        assert.deepEqual(again.action.kind === 'qr' && again.action.payload, first.action.kind === 'qr' && first.action.payload);
      } finally {
        http.close();
      }
    });

    /** A Checkout session of one method, signed with the Checkout session formula; answers its id and order. */
    async function openSession(m: TestMerchant, method: string, currency: string, extra: Record<string, unknown> = {}) {
      const order = { number: `${method}-${Date.now()}`, amount: '25.00', currency, description: `Order by ${method}` };
      const session = await gw.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods: [method], order,
        success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel', error_url: 'https://shop.example/error',
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description), ...extra,
      });
      assert.equal(session.status, 200, session.text);
      return { sessionId: new URL(session.body.redirect_url).pathname.split('/').at(-1)!, order };
    }

    const settledOnCheckout = async (m: TestMerchant, orderNumber: string) => {
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === orderNumber && c.fields.order_status === 'settled', 1);
      assert.ok(cb);
      const f = cb.fields;
      assert.equal(f.hash, checkoutHash(m.password, f.id!, f.order_number!, f.order_amount!, f.order_currency!, f.order_description!));
      return f;
    };

    it('payer challenge on Checkout: the page collects what the challenge request needs, then the code', async () => {
      const m = await merchantWith('payer-challenge');
      const { sessionId, order } = await openSession(m, 'payer-challenge', 'EUR', { customer: { name: 'Jane Roe', email: 'success@gmail.com' } });
      const chosen = await post(`/checkout/${sessionId}/pay`, { method: 'payer-challenge' });
      assert.equal(chosen.status, 303, chosen.text);
      const payPath = new URL(chosen.location!, gw.baseUrl).pathname;
      const form = await get(payPath);
      for (const field of ['billing_address.phone', 'billing_address.country', 'billing_address.address', 'billing_address.city', 'billing_address.zip']) assert.match(form.text, new RegExp(`name="${field.replace('.', '\\.')}"`), field);
      const phone = `+3816${String(Date.now()).slice(-8)}`;
      const given = await post(`${payPath}/fields`, { 'billing_address.phone': phone, 'billing_address.country': 'RS', 'billing_address.address': '1 Main St', 'billing_address.city': 'Belgrade', 'billing_address.zip': '11000' });
      assert.equal(given.status, 303, given.text);
      assert.match((await get(payPath)).text, /name="code"/);
      const outbox = await (await fetch(`${gw.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(phone)}`)).json() as { messages: { body: string }[] };
      await post(`${payPath}/code`, { code: /(\d{6})/.exec(outbox.messages[0]!.body)![1]! });
      await settledOnCheckout(m, order.number);
    });

    /** A mobile-money payment on Checkout up to the payer's wait for the STK prompt. */
    async function mobileMoneyWait(m: TestMerchant) {
      const { sessionId, order } = await openSession(m, 'mobile-money', 'KES', { customer: { name: 'Jane Roe', email: 'success@gmail.com' } });
      const chosen = await post(`/checkout/${sessionId}/pay`, { method: 'mobile-money' });
      assert.equal(chosen.status, 303, chosen.text);
      const payPath = new URL(chosen.location!, gw.baseUrl).pathname;
      const phone = `+2547${String(Date.now()).slice(-8)}`;
      const asked = await post(`${payPath}/fields`, { mobile_number: phone });
      assert.equal(asked.status, 303, asked.text);
      return { order, phone, page: (await get(payPath)).text };
    }

    it('mobile-money payin on Checkout: the charge answers STK_PROMPT and its message; the payer confirms on the phone', async () => {
      const m = await merchantWith('mobile-money', { fee_bearer: true });
      const { order, phone, page } = await mobileMoneyWait(m);
      assert.match(page, new RegExp(`We sent a payment request to \\*+${phone.slice(-4)}`));
      // fee_bearer true: the merchant bears the fee, the payer is asked for the order amount only.
      assert.match(page, new RegExp(`id="apm-provider-message">Confirm the payment of 25\\.00 KES on your phone \\*+${phone.slice(-4)}\\.<`));
      const outbox = await (await fetch(`${gw.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(phone)}`)).json() as { messages: { link: string }[] };
      await post(new URL(outbox.messages[0]!.link).pathname, { decision: 'pay' });
      await settledOnCheckout(m, order.number);
    });

    it('mobile-money payin: the merchant\'s fee-bearer option of the admin panel applies when the MID sets none (the payer bears it)', async () => {
      const m = await merchantWith('mobile-money');
      const options = await admin('PATCH', `/admin/v1/merchants/${m.id}/settings`, { connector_options: { mobile_money: { fee_bearer: 'payer' } } });
      assert.equal(options.status, 200, options.text);
      const { page } = await mobileMoneyWait(m);
      assert.match(page, /Confirm the payment of 25\.25 KES \(fee 0\.25 KES included\)/);
    });
  });
}
