/**
 * Wallet token decryption against tokens genuinely encrypted and signed at test time (keys and certificates made
 * with node:crypto and pkijs by the sandbox issuer): valid tokens decrypt, and each broken check is refused with its
 * own reason. Pure domain code: no store involved.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decryptGooglePayToken, type GooglePayDecryptionConfig } from '../../src/domain/wallets/google-pay-token.ts';
import { decryptApplePayToken, merchantIdHashOf, type ApplePayDecryptionConfig } from '../../src/domain/wallets/apple-pay-token.ts';
import { WALLET_DECLINES, WALLET_DECLINE_CODES } from '../../src/domain/wallets/token-result.ts';
import { DECLINES } from '../../src/domain/declines.ts';
import { ApplePayTestIssuer, GooglePayTestIssuer, createAppleMerchantIdentity } from '../../src/sandbox/wallets/token-issuer.ts';

const CARD = { pan: '4111111111111111', expMonth: 12, expYear: 2030, cryptogram: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', eci: '05' };
const RECIPIENT = 'gateway:portcullis';
const NOW = new Date();
const MINUTE = 60_000;

function flipSignedMessageByte(token: string): string {
  const outer = JSON.parse(token) as { signedMessage: string };
  const message = JSON.parse(outer.signedMessage) as { encryptedMessage: string };
  const bytes = Buffer.from(message.encryptedMessage, 'base64');
  bytes[0] = (bytes[0] ?? 0) ^ 0x80;
  return JSON.stringify({ ...outer, signedMessage: JSON.stringify({ ...message, encryptedMessage: bytes.toString('base64') }) });
}

describe('Google Pay ECv2 decryption', () => {
  const issuer = new GooglePayTestIssuer();
  const merchant = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const config: GooglePayDecryptionConfig = { recipientId: RECIPIENT, rootKeys: issuer.rootKeys, privateKeys: [merchant.privateKey], now: NOW };
  const issue = (extra: Partial<Parameters<GooglePayTestIssuer['issue']>[0]> = {}) =>
    issuer.issue({ recipientId: RECIPIENT, merchantPublicKey: merchant.publicKey, card: CARD, now: NOW, ...extra });
  const reason = (token: string, c: GooglePayDecryptionConfig = config) => {
    const result = decryptGooglePayToken(token, c);
    return result.ok ? 'accepted' : result.reason;
  };

  it('decrypts a valid CRYPTOGRAM_3DS token into the card, its cryptogram and the message id', () => {
    const result = decryptGooglePayToken(issue({ messageId: 'msg-1', gatewayMerchantId: 'shop-1' }), config);
    assert.ok(result.ok);
    assert.deepEqual(
      { ...result.value, expiresAt: undefined },
      { wallet: 'googlepay', messageId: 'msg-1', expiresAt: undefined, pan: CARD.pan, expMonth: 12, expYear: 2030, authMethod: 'CRYPTOGRAM_3DS', cryptogram: CARD.cryptogram, eci: '05', gatewayMerchantId: 'shop-1' },
    );
  });

  it('decrypts a PAN_ONLY token, and with the second of two merchant keys (rotation)', () => {
    const old = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const result = decryptGooglePayToken(issue({ card: { pan: '5555555555554444', expMonth: 1, expYear: 2031 } }), { ...config, privateKeys: [old.privateKey, merchant.privateKey] });
    assert.ok(result.ok);
    assert.equal(result.value.authMethod, 'PAN_ONLY');
    assert.equal(result.value.cryptogram, undefined);
  });

  it('refuses a ciphertext byte flipped after signing: the signature no longer verifies', () => {
    assert.equal(reason(flipSignedMessageByte(issue())), 'token_signature_invalid');
  });

  it('refuses a ciphertext flipped before signing, and a wrong tag: the tag check', () => {
    assert.equal(reason(issue({ tamper: 'ciphertext' })), 'token_tag_mismatch');
    assert.equal(reason(issue({ tamper: 'tag' })), 'token_tag_mismatch');
  });

  it('refuses a token encrypted for another merchant key (the tag does not match)', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    assert.equal(reason(issue({ merchantPublicKey: other.publicKey })), 'token_tag_mismatch');
  });

  it('refuses a token signed for another recipientId', () => {
    assert.equal(reason(issue({ recipientId: 'gateway:someone-else' })), 'token_signature_invalid');
  });

  it('refuses an expired intermediate signing key', () => {
    assert.equal(reason(issue({ intermediateKeyExpiration: new Date(NOW.getTime() - MINUTE) })), 'intermediate_key_expired');
  });

  it('refuses an expired message', () => {
    assert.equal(reason(issue({ messageExpiration: new Date(NOW.getTime() - 1) })), 'token_expired');
  });

  it('refuses an intermediate key signed by an unknown root, and trusts no expired or non-ECv2 root', () => {
    const stranger = new GooglePayTestIssuer();
    assert.equal(reason(stranger.issue({ recipientId: RECIPIENT, merchantPublicKey: merchant.publicKey, card: CARD, now: NOW })), 'intermediate_key_untrusted');
    const [root] = issuer.rootKeys;
    assert.ok(root);
    assert.equal(reason(issue(), { ...config, rootKeys: [{ ...root, keyExpiration: String(NOW.getTime() - 1) }] }), 'intermediate_key_untrusted');
    assert.equal(reason(issue(), { ...config, rootKeys: [{ ...root, protocolVersion: 'ECv1' }] }), 'intermediate_key_untrusted');
  });

  it('refuses malformed input and other protocol versions without throwing', () => {
    for (const bad of ['', 'null', '[]', '{"protocolVersion":"ECv2"}', '{', JSON.stringify({ ...JSON.parse(issue()) as object, signedMessage: 'not json' })]) {
      const got = reason(bad);
      assert.ok(got === 'token_malformed' || got === 'token_signature_invalid', `${bad}: ${got}`);
    }
    assert.equal(reason(JSON.stringify({ ...JSON.parse(issue()) as object, protocolVersion: 'ECv1' })), 'token_protocol_unsupported');
  });
});

describe('Apple Pay EC_v1 decryption', () => {
  let issuer: ApplePayTestIssuer;
  let identity: Awaited<ReturnType<typeof createAppleMerchantIdentity>>;
  let config: ApplePayDecryptionConfig;
  let processingKey: KeyObject;
  before(async () => {
    issuer = await ApplePayTestIssuer.create();
    identity = await createAppleMerchantIdentity('merchant.com.example.shop');
    processingKey = createPrivateKey(identity.processingPrivateKeyPem);
    const merchantIdHash = merchantIdHashOf(identity.certificatePem);
    assert.ok(merchantIdHash, 'the merchant certificate carries the merchant identifier');
    config = { rootCertificates: [issuer.rootCertificate], processingKeys: [processingKey], merchantIdHash, now: NOW };
  });
  const issue = (extra: Partial<Parameters<ApplePayTestIssuer['issue']>[0]> = {}, by = issuer) =>
    by.issue({ merchantPublicKey: identity.processingPublicKey, merchantIdHash: identity.merchantIdHash, card: CARD, signingTime: NOW, ...extra });
  const reason = async (token: unknown, c: ApplePayDecryptionConfig = config) => {
    const result = decryptApplePayToken(await token, c);
    return result.ok ? 'accepted' : result.reason;
  };

  it('decrypts a valid token into the card, its cryptogram and the transaction id', async () => {
    const token = await issue({ transactionId: 'ab'.repeat(32) });
    const result = decryptApplePayToken(token, config);
    assert.ok(result.ok);
    assert.equal(result.value.pan, CARD.pan);
    assert.equal(result.value.expMonth, 12);
    assert.equal(result.value.expYear, 2030);
    assert.equal(result.value.cryptogram, CARD.cryptogram);
    assert.equal(result.value.eci, '05');
    assert.equal(result.value.messageId, 'ab'.repeat(32));
  });

  it('refuses a ciphertext byte flipped after signing (the signed digest no longer matches)', async () => {
    const token = await issue();
    const data = Buffer.from(token.data, 'base64');
    data[0] = (data[0] ?? 0) ^ 0x01;
    assert.equal(await reason({ ...token, data: data.toString('base64') }), 'token_signature_invalid');
  });

  it('refuses a ciphertext flipped before signing, and a wrong tag: the GCM tag check', async () => {
    assert.equal(await reason(issue({ tamper: 'ciphertext' })), 'token_tag_mismatch');
    assert.equal(await reason(issue({ tamper: 'tag' })), 'token_tag_mismatch');
  });

  it('refuses a token for another merchant identifier (the derived key differs: tag)', async () => {
    assert.equal(await reason(issue(), { ...config, merchantIdHash: Buffer.alloc(32, 7) }), 'token_tag_mismatch');
  });

  it('refuses a token whose publicKeyHash names a key the merchant does not have', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    assert.equal(await reason(issue(), { ...config, processingKeys: [other.privateKey] }), 'public_key_hash_unknown');
  });

  it('refuses a signing time outside the window, either side', async () => {
    assert.equal(await reason(issue({ signingTime: new Date(NOW.getTime() - 10 * MINUTE) })), 'signing_time_out_of_window');
    assert.equal(await reason(issue({ signingTime: new Date(NOW.getTime() + 10 * MINUTE) })), 'signing_time_out_of_window');
    assert.equal(await reason(issue({ signingTime: new Date(NOW.getTime() - 2 * MINUTE) })), 'accepted');
  });

  it('refuses a chain ending at an unknown root', async () => {
    const stranger = await ApplePayTestIssuer.create();
    assert.equal(await reason(issue({}, stranger)), 'certificate_chain_untrusted');
  });

  it('refuses signing certificates without the marker OIDs, even under the trusted root', async () => {
    const unmarked = await ApplePayTestIssuer.create({ markers: false });
    assert.equal(await reason(issue({}, unmarked), { ...config, rootCertificates: [unmarked.rootCertificate] }), 'certificate_marker_missing');
  });

  it('refuses a swapped signature, malformed tokens and other versions without throwing', async () => {
    const a = await issue();
    const b = await issue();
    assert.equal(await reason({ ...a, signature: b.signature }), 'token_signature_invalid');
    assert.equal(await reason({ ...a, version: 'RSA_v1' }), 'token_protocol_unsupported');
    for (const bad of [null, 'x', {}, { ...a, header: undefined }, { ...a, signature: 'bm90IGNtcw==' }]) {
      assert.equal(await reason(bad), 'token_malformed');
    }
  });
});

describe('wallet decline reasons', () => {
  it('have a text and a unified code for every reason, none quoting token content', () => {
    for (const [reason, text] of Object.entries(WALLET_DECLINES)) {
      assert.match(text, /^[A-Z].*\.$/, reason);
      assert.doesNotMatch(text, /[0-9]{6,}|\{|\$/, `${reason}: nothing of a token or card`);
      assert.ok(Object.hasOwn(DECLINES, WALLET_DECLINE_CODES[reason as keyof typeof WALLET_DECLINES]), reason);
    }
    assert.deepEqual(Object.keys(WALLET_DECLINE_CODES).sort(), Object.keys(WALLET_DECLINES).sort());
  });
});
