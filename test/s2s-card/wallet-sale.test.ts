/**
 * S2S CARD SALE with digital_wallet and payment_token (F8), decrypted flow, on both stores: the merchant's Wallets
 * tab is set through the admin API, tokens are genuinely encrypted and signed by the sandbox issuer (whose roots
 * the gateway is given), and the decrypted card is charged, captured and charged again on its recurring chain.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { REDACTED_PATHS } from '../../src/logger.ts';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { CARD, EMAIL, errorOf, f1, followUp, orderId, reversedIdHash, saleFields } from './support.ts';
import { findPaymentsByOrder, getPayment } from '../../src/store/payments-repo.ts';
import { WALLET_DECLINES } from '../../src/domain/wallets/token-result.ts';
import { ApplePayTestIssuer, GooglePayTestIssuer, createAppleMerchantIdentity } from '../../src/sandbox/wallets/token-issuer.ts';

/** Formula 8, from the docs: md5(strtoupper(strrev(email) . PASSWORD)). */
const f8 = (email: string, password: string) =>
  createHash('md5').update(Buffer.from(`${[...email].reverse().join('')}${password}`.toUpperCase(), 'utf8')).digest('hex');

const GOOGLE_MERCHANT_ID = 'BCR2DN4T000001';
const APPLE_MERCHANT_ID = 'merchant.com.portcullis.wallet-test';
/** The sandbox connector's success card: expiry month 01. */
const TOKEN_CARD = { pan: CARD, expMonth: 1, expYear: 2038, cryptogram: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', eci: '05' };

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S wallet SALE, decrypted flow (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let merchant: TestMerchant;
    const google = new GooglePayTestIssuer();
    const googleKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    let apple: ApplePayTestIssuer;
    let identity: Awaited<ReturnType<typeof createAppleMerchantIdentity>>;
    let operator: string;
    const logLines: string[] = [];

    const googleToken = (extra: Partial<Parameters<GooglePayTestIssuer['issue']>[0]> = {}) =>
      google.issue({ recipientId: `merchant:${GOOGLE_MERCHANT_ID}`, merchantPublicKey: googleKey.publicKey, card: TOKEN_CARD, ...extra });
    const appleToken = async () =>
      JSON.stringify({ paymentData: await apple.issue({ merchantPublicKey: identity.processingPublicKey, merchantIdHash: identity.merchantIdHash, card: TOKEN_CARD }) });
    const walletSale = (wallet: string, token: string, overrides: Record<string, unknown> = {}, m: TestMerchant = merchant) => {
      const fields: Record<string, unknown> = { ...saleFields({ order_id: orderId('WALLET'), digital_wallet: wallet, payment_token: token, ...overrides }) };
      for (const key of ['card_number', 'card_exp_month', 'card_exp_year', 'card_cvv2']) delete fields[key];
      return gw.postForm('/post', { client_key: m.key, ...fields, hash: f8(EMAIL, m.password) });
    };

    before(async () => {
      // Everything the gateway logs, at trace level with each request: the decrypted card must never be in it.
      const sink = new Writable({ write(chunk, _enc, done) { logLines.push(String(chunk)); done(); } });
      const logger = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
      gw = await startTestGateway(kind, { adminToken: `admin-wallet-sale-${kind}`, mids: [{ paymentMode: 'SMS/DMS', cardOnFileSupport: true }], logger, logRequests: true });
      merchant = gw.merchant;
      apple = await ApplePayTestIssuer.create();
      identity = await createAppleMerchantIdentity(APPLE_MERCHANT_ID);
      gw.gateway.ctx.walletTrust = { googleRootKeys: { TEST: google.rootKeys, PRODUCTION: [] }, appleRootCertificates: [apple.rootCertificate] };
      operator = await tokenFor(gw, 'operator');
      const res = await adminCall(gw.baseUrl, 'PUT', `/admin/v1/merchants/${merchant.id}/wallets`, operator, {
        apple_pay: {
          merchant_identifier: APPLE_MERCHANT_ID, country: 'GB', shop_name: 'Wallet Shop', certificate: identity.certificatePem, private_key: identity.privateKeyPem,
          processing_private_key: identity.processingPrivateKeyPem, merchant_capabilities: ['supports3DS'], supported_networks: ['visa'], domains: ['shop.example.com'],
        },
        google_pay: {
          environment: 'TEST', allowed_auth_methods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'], supported_networks: ['VISA'], merchant_identifier: GOOGLE_MERCHANT_ID,
          gateway: 'portcullis', gateway_merchant_id: 'shop-1', extra_parameters: false,
          private_key: googleKey.privateKey.export({ type: 'pkcs8', format: 'pem' }),
        },
      });
      assert.equal(res.status, 200, res.text);
    });
    after(async () => gw?.close());

    it('charges a Google Pay token: the decrypted card is vaulted, the payment marked googlepay, nothing of the card answered', async () => {
      const res = await walletSale('googlepay', googleToken());
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'SUCCESS', res.text);
      assert.equal(res.body.status, 'SETTLED');
      assert.ok(!res.text.includes(CARD), 'the PAN is not answered');
      assert.ok(!res.text.includes(TOKEN_CARD.cryptogram), 'nor the cryptogram');
      const payment = await getPayment(gw.store.db, res.body.trans_id);
      assert.deepEqual(payment?.details.wallet, { name: 'googlepay', flow: 'decrypted', authMethod: 'CRYPTOGRAM_3DS' });
      assert.equal(payment?.details.first6Last4, '4111111111');
      assert.ok(!JSON.stringify(payment, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(TOKEN_CARD.cryptogram), 'the cryptogram is not stored');
      // The operator's payment page: the wallet as the method, the decrypted card masked.
      const view = await adminCall(gw.baseUrl, 'GET', `/admin/v1/payments/${res.body.trans_id}`, operator);
      assert.equal(view.status, 200, view.text);
      assert.match(view.text, /"method":"googlepay"/);
      assert.match(view.text, /"card":"411111\*+1111"/);
      assert.ok(!view.text.includes(CARD));
      // The search finds it by its method, as the payment page names it.
      const byMethod = await adminCall(gw.baseUrl, 'GET', `/admin/v1/payments?merchant_id=${merchant.id}&method=googlepay`, operator);
      assert.equal(byMethod.status, 200, byMethod.text);
      assert.ok(byMethod.body.payments.some((p: { id: string }) => p.id === res.body.trans_id), byMethod.text);
      const asCard = await adminCall(gw.baseUrl, 'GET', `/admin/v1/payments?merchant_id=${merchant.id}&method=card`, operator);
      assert.ok(!asCard.body.payments.some((p: { id: string }) => p.id === res.body.trans_id), 'not listed as a card method');
    });

    it('holds an Apple Pay token with auth=Y and captures it (DMS on the decrypted card)', async () => {
      const res = await walletSale('applepay', await appleToken(), { auth: 'Y' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'SUCCESS', res.text);
      assert.equal(res.body.status, 'PENDING');
      const payment = await getPayment(gw.store.db, res.body.trans_id);
      assert.equal(payment?.details.wallet?.name, 'applepay');
      const captured = await followUp(gw, 'CAPTURE', res.body.trans_id);
      assert.equal(captured.status, 200, captured.text);
      assert.equal(captured.body.result, 'SUCCESS', captured.text);
      assert.equal(captured.body.status, 'SETTLED');
    });

    it('starts a recurring chain with a Google Pay token and charges it again by RECURRING_SALE', async () => {
      const init = await walletSale('googlepay', googleToken(), { recurring_init: 'Y' });
      assert.equal(init.body.result, 'SUCCESS', init.text);
      assert.ok(init.body.recurring_token, init.text);
      const res = await gw.postForm('/post', {
        action: 'RECURRING_SALE', client_key: merchant.key, order_id: orderId('REC'), order_amount: '2.50', order_description: 'Month 2',
        recurring_first_trans_id: init.body.trans_id, recurring_token: init.body.recurring_token, hash: f1(EMAIL, merchant.password, CARD),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'SUCCESS', res.text);
      assert.equal(res.body.amount, '2.50');
    });

    it('declines a replayed token (same messageId): a payment record with the reason, not a second charge', async () => {
      const token = googleToken();
      assert.equal((await walletSale('googlepay', token)).body.result, 'SUCCESS');
      const again = await walletSale('googlepay', token);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.result, 'DECLINED', again.text);
      assert.equal(again.body.decline_reason, WALLET_DECLINES.token_replayed);
      const payment = await getPayment(gw.store.db, again.body.trans_id);
      assert.equal(payment?.status, 'decline');
      assert.equal(payment?.vaultId, null, 'nothing of a refused token is vaulted');
    });

    it('declines a broken token with its own reason (never a 5xx), each a payment the merchant can look up', async () => {
      const order = orderId('BROKEN');
      const res = await walletSale('googlepay', googleToken({ tamper: 'tag' }), { order_id: order });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'DECLINED', res.text);
      assert.equal(res.body.decline_reason, WALLET_DECLINES.token_tag_mismatch);
      const other = await walletSale('googlepay', googleToken({ recipientId: 'merchant:someone-else' }));
      assert.equal(other.body.decline_reason, WALLET_DECLINES.token_signature_invalid);
      const appleBroken = await walletSale('applepay', JSON.stringify({ paymentData: await apple.issue({ merchantPublicKey: identity.processingPublicKey, merchantIdHash: identity.merchantIdHash, card: TOKEN_CARD, tamper: 'ciphertext' }) }));
      assert.equal(appleBroken.body.decline_reason, WALLET_DECLINES.token_tag_mismatch);
      const [stored] = await findPaymentsByOrder(gw.store.db, merchant.id, order, 1);
      assert.equal(stored?.status, 'decline');
      assert.equal(stored?.declineReason, WALLET_DECLINES.token_tag_mismatch);
      assert.equal(stored?.details.declineCode, 'invalid_request');
      const status = await gw.postForm('/post', { action: 'GET_TRANS_STATUS', client_key: merchant.key, trans_id: res.body.trans_id, hash: reversedIdHash(res.body.trans_id, merchant.password) });
      assert.equal(status.body.status, 'DECLINED', status.text);
      assert.equal(status.body.decline_reason, WALLET_DECLINES.token_tag_mismatch);
    });

    it('accepts only F8 for a wallet SALE, and asks for payment_token', async () => {
      const fields = { ...saleFields({ order_id: orderId('F1'), digital_wallet: 'googlepay', payment_token: googleToken() }) };
      const wrong = await gw.postForm('/post', { client_key: merchant.key, ...fields, hash: f1(EMAIL, merchant.password, CARD) });
      assert.equal(wrong.status, 401, wrong.text);
      assert.match(errorOf(wrong).error_message, /hash/i);
      const missing = await gw.postForm('/post', { client_key: merchant.key, ...saleFields({ digital_wallet: 'applepay', card_number: undefined }), hash: f8(EMAIL, merchant.password) });
      assert.equal(missing.status, 400, missing.text);
      assert.ok(errorOf(missing).errors?.some((e) => /payment_token/.test(e.error_message)), missing.text);
    });

    it('declines a wallet the merchant has not set up, with the reason', async () => {
      const bare = await gw.addMerchant();
      const unset = await walletSale('googlepay', googleToken(), {}, bare);
      assert.equal(unset.status, 200, unset.text);
      assert.equal(unset.body.result, 'DECLINED', unset.text);
      assert.equal(unset.body.decline_reason, WALLET_DECLINES.wallet_not_enabled);
    });

    it('logged neither the decrypted PAN nor the cryptogram, and logged each refusal\'s reason', () => {
      const log = logLines.join('');
      assert.ok(log.length > 0, 'the gateway logged');
      assert.ok(!log.includes(CARD), 'no PAN');
      assert.ok(!log.includes(TOKEN_CARD.cryptogram), 'no cryptogram');
      assert.match(log, /"reason":"token_replayed"/);
      assert.match(log, /"reason":"token_tag_mismatch"/);
    });
  });
}
