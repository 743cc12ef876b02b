/**
 * The sandbox's own wallet roots and the wallet simulator behind the hosted page's sandbox payment sheet. Real Apple
 * and Google sheets need their servers; the simulator makes what they make: a token genuinely encrypted for the
 * merchant's key (decrypted flow) or for an acquirer's (virtual flow) and signed through a test chain, by the
 * published formats (test-token-issuer.ts). Only sandbox merchants trust these roots.
 *
 * The root keys are derived from fixed, published labels, so every node of a deployment has the same roots (a token
 * the simulator made on one node verifies on any other) and nobody needs to configure them. They are test roots in
 * the open, as Google's own test keys are: a live merchant never trusts them.
 */
import { createECDH, createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { ServiceContext } from '../../services/context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import { merchantIdHashOf } from '../../domain/wallets/apple-pay-token.ts';
import type { WalletName } from '../../domain/wallets/wallet-flow.ts';
import { ApplePayTestIssuer, GooglePayTestIssuer, type TestCard } from './token-issuer.ts';
import { walletSetup, type WalletTrust } from '../../services/wallets/wallet-tokens.ts';

/** A P-256 key whose private scalar is the SHA-256 of a label. */
function labelledKey(label: string): KeyObject {
  const d = createHash('sha256').update(label).digest();
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const b64 = (b: Buffer) => b.toString('base64url');
  return createPrivateKey({ key: { kty: 'EC', crv: 'P-256', d: b64(d), x: b64(point.subarray(1, 33)), y: b64(point.subarray(33, 65)) }, format: 'jwk' });
}

interface Simulator { google: GooglePayTestIssuer; apple: ApplePayTestIssuer; trust: WalletTrust }

let simulator: Promise<Simulator> | undefined;

/** The sandbox issuers (built once per process, the same roots on every node). */
export function sandboxWallets(): Promise<Simulator> {
  simulator ??= (async () => {
    const googleRoot = labelledKey('Portcullis sandbox Google Pay root signing key v1');
    const google = new GooglePayTestIssuer({ privateKey: googleRoot, publicKey: createPublicKey(googleRoot) });
    const apple = await ApplePayTestIssuer.create({ rootKey: labelledKey('Portcullis sandbox Apple Pay root CA v1') });
    return { google, apple, trust: { googleRootKeys: { TEST: google.rootKeys, PRODUCTION: google.rootKeys }, appleRootCertificates: [apple.rootCertificate] } };
  })();
  return simulator;
}

/** The simulator's test cards: what the payer picks on the sandbox sheet (the sandbox engine's outcomes by expiry). */
export const SIMULATOR_CARDS: Readonly<Record<'success' | 'decline', TestCard>> = {
  success: { pan: '4111111111111111', expMonth: 1, expYear: 2038, cryptogram: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', eci: '05' },
  decline: { pan: '4111111111111111', expMonth: 2, expYear: 2038, cryptogram: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', eci: '05' },
};

/** A key no one keeps: a token "for the acquirer" in the virtual flow, which the sandbox engine takes unread. */
const acquirerKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;

/**
 * A token as the wallet would hand it to the page: for the merchant's own key when the Wallets tab holds one
 * (the gateway decrypts it), else for an acquirer's. Undefined when the wallet is not enabled for the merchant.
 */
export async function simulateWalletToken(ctx: ServiceContext, merchant: Merchant, wallet: WalletName, card: TestCard, amountMinor: bigint): Promise<string | undefined> {
  const setup = await walletSetup(ctx, merchant, wallet);
  if (!setup.enabled) return undefined;
  const { google, apple } = await sandboxWallets();
  const key = setup.key ? createPublicKey(setup.key) : acquirerKey();
  if (wallet === 'googlepay') {
    const settings = setup.settings as { merchantIdentifier: string };
    return google.issue({ recipientId: `merchant:${settings.merchantIdentifier}`, merchantPublicKey: key, card });
  }
  const certificate = (setup.settings as { certificate: { pem: string } }).certificate.pem;
  const merchantIdHash = merchantIdHashOf(certificate) ?? createHash('sha256').update(merchant.id).digest();
  const paymentData = await apple.issue({ merchantPublicKey: key, merchantIdHash, card, amountMinor: Number(amountMinor) });
  // What ApplePayPaymentAuthorizedEvent.payment.token holds.
  return JSON.stringify({ paymentData, paymentMethod: { displayName: `Visa ${card.pan.slice(-4)}`, network: 'Visa', type: 'credit' }, transactionIdentifier: paymentData.header.transactionId });
}
