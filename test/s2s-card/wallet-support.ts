/**
 * What wallet tests share: the sandbox token issuers (test roots the gateway is told to trust), a merchant's Wallets
 * tab set through the admin API with or without the decryption keys, and a signed S2S wallet SALE (Formula 8).
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { TestGateway, TestMerchant } from '../support/gateway.ts';
import { adminCall } from '../admin/config-support.ts';
import { CARD, EMAIL, orderId, saleFields } from './support.ts';
import { ApplePayTestIssuer, GooglePayTestIssuer, createAppleMerchantIdentity, type TestCard } from '../../src/sandbox/wallets/token-issuer.ts';

/** Formula 8, from the docs: md5(strtoupper(strrev(email) . PASSWORD)). */
export const f8 = (email: string, password: string) =>
  createHash('md5').update(Buffer.from(`${[...email].reverse().join('')}${password}`.toUpperCase(), 'utf8')).digest('hex');

export const GOOGLE_MERCHANT_ID = 'BCR2DN4T000001';
export const APPLE_MERCHANT_ID = 'merchant.com.portcullis.wallet-test';
/** The sandbox connector's success card (expiry month 01), with a cryptogram and an ECI the tests look for. */
export const TOKEN_CARD: TestCard = { pan: CARD, expMonth: 1, expYear: 2038, cryptogram: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', eci: '06' };

export interface WalletKit {
  google: GooglePayTestIssuer;
  googleKey: { publicKey: KeyObject; privateKey: KeyObject };
  apple: ApplePayTestIssuer;
  identity: Awaited<ReturnType<typeof createAppleMerchantIdentity>>;
  googleToken(extra?: Partial<Parameters<GooglePayTestIssuer['issue']>[0]>): string;
  appleToken(card?: TestCard): Promise<string>;
}

/** Issuers and merchant keys; the gateway trusts the issuers' roots (as the sandbox does). */
export async function walletKit(gw: TestGateway): Promise<WalletKit> {
  const google = new GooglePayTestIssuer();
  const googleKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const apple = await ApplePayTestIssuer.create();
  const identity = await createAppleMerchantIdentity(APPLE_MERCHANT_ID);
  gw.gateway.ctx.walletTrust = { googleRootKeys: { TEST: google.rootKeys, PRODUCTION: [] }, appleRootCertificates: [apple.rootCertificate] };
  return {
    google, googleKey, apple, identity,
    googleToken: (extra = {}) => google.issue({ recipientId: `merchant:${GOOGLE_MERCHANT_ID}`, merchantPublicKey: googleKey.publicKey, card: TOKEN_CARD, ...extra }),
    appleToken: async (card = TOKEN_CARD) =>
      JSON.stringify({ paymentData: await apple.issue({ merchantPublicKey: identity.processingPublicKey, merchantIdHash: identity.merchantIdHash, card }) }),
  };
}

/** Sets both wallets on a merchant's Wallets tab, with the decryption keys (decrypted flow) or without (virtual). */
export async function configureWallets(gw: TestGateway, operator: string, merchantId: string, kit: WalletKit, withKeys: boolean): Promise<void> {
  const res = await adminCall(gw.baseUrl, 'PUT', `/admin/v1/merchants/${merchantId}/wallets`, operator, {
    apple_pay: {
      merchant_identifier: APPLE_MERCHANT_ID, country: 'GB', shop_name: 'Wallet Shop', certificate: kit.identity.certificatePem, private_key: kit.identity.privateKeyPem,
      ...(withKeys ? { processing_private_key: kit.identity.processingPrivateKeyPem } : {}),
      merchant_capabilities: ['supports3DS'], supported_networks: ['visa'], domains: ['shop.example.com'],
    },
    google_pay: {
      environment: 'TEST', allowed_auth_methods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'], supported_networks: ['VISA'], merchant_identifier: GOOGLE_MERCHANT_ID,
      gateway: 'portcullis', gateway_merchant_id: 'shop-1', extra_parameters: false,
      ...(withKeys ? { private_key: kit.googleKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) } : {}),
    },
  });
  assert.equal(res.status, 200, res.text);
}

/** An S2S SALE with digital_wallet and payment_token, signed with F8. */
export function walletSale(gw: TestGateway, m: TestMerchant, wallet: string, token: string, overrides: Record<string, unknown> = {}) {
  const fields: Record<string, unknown> = { ...saleFields({ order_id: orderId('WALLET'), digital_wallet: wallet, payment_token: token, ...overrides }) };
  for (const key of ['card_number', 'card_exp_month', 'card_exp_year', 'card_cvv2']) delete fields[key];
  return gw.postForm('/post', { client_key: m.key, ...fields, hash: f8(EMAIL, m.password) });
}
