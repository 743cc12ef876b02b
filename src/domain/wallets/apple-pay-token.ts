/**
 * Apple Pay payment tokens, version EC_v1 (Apple's "Payment token format reference"): the detached PKCS#7
 * signature is verified here with node:crypto (pkijs only parses the CMS structure): leaf and intermediate carry
 * Apple's marker extensions, the chain ends at the configured Apple root, the signed attributes' digest matches
 * the signed data and the signing time is within the window. The key is picked by publicKeyHash; ECDH, the NIST
 * single-step KDF with the merchant identifier from the merchant certificate, then AES-256-GCM with its tag.
 * Pure: no I/O, the clock is given. Every refusal is a reason from WALLET_DECLINES, never an exception.
 */
import { createDecipheriv, createHash, createPublicKey, diffieHellman, timingSafeEqual, verify, X509Certificate, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import { Certificate, ContentInfo, SignedData } from 'pkijs';
import { type TokenResult, refuse, stringField } from './token-result.ts';

export const APPLE_LEAF_MARKER = '1.2.840.113635.100.6.29';
export const APPLE_INTERMEDIATE_MARKER = '1.2.840.113635.100.6.2.14';
export const APPLE_MERCHANT_ID_EXTENSION = '1.2.840.113635.100.6.32';
const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SIGNING_TIME = '1.2.840.113549.1.9.5';
/** Apple: "ensure that the time is within a few minutes"; five by default. */
export const DEFAULT_SIGNING_WINDOW_MS = 5 * 60_000;

export interface ApplePayToken {
  version: string;
  data: string;
  signature: string;
  header: { ephemeralPublicKey: string; publicKeyHash: string; transactionId: string; applicationData?: string };
}

export interface ApplePayDecryptionConfig {
  rootCertificates: readonly X509Certificate[];
  /** The merchant's payment processing private keys (more than one while rotating). */
  processingKeys: readonly KeyObject[];
  /** SHA-256 of the merchant identifier (the merchant certificate's extension 1.2.840.113635.100.6.32). */
  merchantIdHash: Buffer;
  now: Date;
  signingWindowMs?: number;
}

export interface ApplePayCard {
  wallet: 'applepay';
  /** The replay key: a token is accepted once. */
  messageId: string;
  pan: string;
  expMonth: number;
  expYear: number;
  cryptogram?: string;
  eci?: string;
  currency?: string;
  amount?: string;
}

/** The merchant certificate's identifier hash: the extension holds it as 64 hex characters in a string. */
export function merchantIdHashOf(certificatePem: string): Buffer | undefined {
  try {
    const der = new X509Certificate(certificatePem).raw;
    const certificate = Certificate.fromBER(der);
    const extension = certificate.extensions?.find((e) => e.extnID === APPLE_MERCHANT_ID_EXTENSION);
    if (!extension) return undefined;
    const inner = extension.extnValue.valueBlock.valueHexView;
    const parsed = asn1js.fromBER(inner).result as unknown as { valueBlock?: { value?: unknown } };
    const text = typeof parsed.valueBlock?.value === 'string' ? parsed.valueBlock.value : Buffer.from(inner).toString('latin1');
    const hex = /[0-9a-fA-F]{64}/.exec(text)?.[0];
    return hex ? Buffer.from(hex, 'hex') : undefined;
  } catch {
    return undefined;
  }
}

export function readApplePayToken(value: unknown): ApplePayToken | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const t = value as Record<string, unknown>;
  const header = t.header as Record<string, unknown> | undefined;
  const version = stringField(t, 'version');
  const data = stringField(t, 'data');
  const signature = stringField(t, 'signature');
  if (!version || !data || !signature || !header) return undefined;
  const ephemeralPublicKey = stringField(header, 'ephemeralPublicKey');
  const publicKeyHash = stringField(header, 'publicKeyHash');
  const transactionId = stringField(header, 'transactionId');
  const applicationData = stringField(header, 'applicationData');
  if (!ephemeralPublicKey || !publicKeyHash || !transactionId || !/^[0-9a-fA-F]*$/.test(transactionId)) return undefined;
  return { version, data, signature, header: { ephemeralPublicKey, publicKeyHash, transactionId, ...(applicationData ? { applicationData } : {}) } };
}

/** What Apple signs: ephemeral key || data || transaction id || application data (the last two hex-decoded). */
export function appleSignedContent(token: ApplePayToken): Buffer {
  return Buffer.concat([
    Buffer.from(token.header.ephemeralPublicKey, 'base64'),
    Buffer.from(token.data, 'base64'),
    Buffer.from(token.header.transactionId, 'hex'),
    Buffer.from(token.header.applicationData ?? '', 'hex'),
  ]);
}

interface SignatureParts { certificates: Certificate[]; signedAttrs: Buffer; signature: Buffer; digest?: Buffer; signingTime?: Date }

function parseSignature(signatureB64: string): SignatureParts | undefined {
  try {
    const info = ContentInfo.fromBER(Buffer.from(signatureB64, 'base64'));
    const signed = new SignedData({ schema: info.content });
    const signer = signed.signerInfos[0];
    const attrs = signer?.signedAttrs;
    if (!signer || !attrs) return undefined;
    // The signature covers the attributes DER-encoded as a SET (tag 0x31), not as the [0] IMPLICIT they travel in.
    const signedAttrs = Buffer.from(attrs.encodedValue);
    signedAttrs[0] = 0x31;
    const attribute = (oid: string) => attrs.attributes.find((a) => a.type === oid)?.values[0] as unknown;
    const digest = attribute(OID_MESSAGE_DIGEST) as asn1js.OctetString | undefined;
    const time = attribute(OID_SIGNING_TIME) as asn1js.UTCTime | asn1js.GeneralizedTime | undefined;
    return {
      certificates: (signed.certificates ?? []).filter((c): c is Certificate => c instanceof Certificate),
      signedAttrs,
      signature: Buffer.from(signer.signature.valueBlock.valueHexView),
      ...(digest ? { digest: Buffer.from(digest.valueBlock.valueHexView) } : {}),
      ...(time ? { signingTime: time.toDate() } : {}),
    };
  } catch {
    return undefined;
  }
}

const hasExtension = (c: Certificate, oid: string): boolean => (c.extensions ?? []).some((e) => e.extnID === oid);
const toX509 = (c: Certificate): X509Certificate => new X509Certificate(Buffer.from(c.toSchema().toBER(false)));

function validAt(c: X509Certificate, at: Date): boolean {
  return new Date(c.validFrom).getTime() <= at.getTime() && at.getTime() <= new Date(c.validTo).getTime();
}

function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

/** Leaf (marker .6.29) <- intermediate (marker .6.2.14) <- one of the configured roots, each valid now. */
function verifiedLeaf(parts: SignatureParts, config: ApplePayDecryptionConfig): TokenResult<X509Certificate> {
  const leaf = parts.certificates.find((c) => hasExtension(c, APPLE_LEAF_MARKER));
  const intermediate = parts.certificates.find((c) => hasExtension(c, APPLE_INTERMEDIATE_MARKER));
  if (!leaf || !intermediate) return refuse('certificate_marker_missing');
  const leafX = toX509(leaf);
  const intermediateX = toX509(intermediate);
  const chained = issuedBy(leafX, intermediateX)
    && config.rootCertificates.some((root) => issuedBy(intermediateX, root) && validAt(root, config.now))
    && validAt(leafX, config.now) && validAt(intermediateX, config.now);
  return chained ? { ok: true, value: leafX } : refuse('certificate_chain_untrusted');
}

function verifySignature(token: ApplePayToken, config: ApplePayDecryptionConfig): TokenResult<true> {
  const parts = parseSignature(token.signature);
  if (!parts || !parts.digest || !parts.signingTime) return refuse('token_malformed');
  const leaf = verifiedLeaf(parts, config);
  if (!leaf.ok) return leaf;
  const digest = createHash('sha256').update(appleSignedContent(token)).digest();
  const digestMatches = parts.digest.length === digest.length && timingSafeEqual(parts.digest, digest);
  let signatureMatches = false;
  try {
    signatureMatches = verify('sha256', parts.signedAttrs, { key: leaf.value.publicKey, dsaEncoding: 'der' }, parts.signature);
  } catch {
    signatureMatches = false;
  }
  if (!digestMatches || !signatureMatches) return refuse('token_signature_invalid');
  const window = config.signingWindowMs ?? DEFAULT_SIGNING_WINDOW_MS;
  if (Math.abs(config.now.getTime() - parts.signingTime.getTime()) > window) return refuse('signing_time_out_of_window');
  return { ok: true, value: true };
}

/** base64 SHA-256 of the key's public half (SPKI DER): how Apple names the key it encrypted for. */
export function applePublicKeyHash(key: KeyObject): string {
  const publicKey = key.type === 'public' ? key : createPublicKey(key);
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
}

/** NIST SP 800-56A single-step KDF, SHA-256, one round: the AES-256 key. */
function appleSymmetricKey(shared: Buffer, merchantIdHash: Buffer): Buffer {
  const algorithm = Buffer.concat([Buffer.from([0x0d]), Buffer.from('id-aes256-GCM', 'ascii')]);
  return createHash('sha256').update(Buffer.concat([Buffer.from([0, 0, 0, 1]), shared, algorithm, Buffer.from('Apple', 'ascii'), merchantIdHash])).digest();
}

function decryptData(token: ApplePayToken, config: ApplePayDecryptionConfig): TokenResult<string> {
  const key = config.processingKeys.find((k) => applePublicKeyHash(k) === token.header.publicKeyHash);
  if (!key) return refuse('public_key_hash_unknown');
  const data = Buffer.from(token.data, 'base64');
  if (data.length <= 16) return refuse('token_malformed');
  try {
    const ephemeral = createPublicKey({ key: Buffer.from(token.header.ephemeralPublicKey, 'base64'), format: 'der', type: 'spki' });
    const shared = diffieHellman({ privateKey: key, publicKey: ephemeral });
    const decipher = createDecipheriv('aes-256-gcm', appleSymmetricKey(shared, config.merchantIdHash), Buffer.alloc(16));
    decipher.setAuthTag(data.subarray(data.length - 16));
    return { ok: true, value: Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8') };
  } catch {
    return refuse('token_tag_mismatch');
  }
}

function readCard(plaintext: string, messageId: string): TokenResult<ApplePayCard> {
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(plaintext) as Record<string, unknown>;
  } catch {
    return refuse('token_malformed');
  }
  const pan = stringField(payload, 'applicationPrimaryAccountNumber');
  const expiry = stringField(payload, 'applicationExpirationDate');
  if (!pan || !/^\d{12,19}$/.test(pan) || !expiry || !/^\d{6}$/.test(expiry)) return refuse('token_malformed');
  const paymentData = (payload.paymentData ?? {}) as Record<string, unknown>;
  const cryptogram = stringField(paymentData, 'onlinePaymentCryptogram');
  const eci = stringField(paymentData, 'eciIndicator');
  const currency = stringField(payload, 'currencyCode');
  const amount = typeof payload.transactionAmount === 'number' ? String(payload.transactionAmount) : undefined;
  return {
    ok: true,
    value: {
      wallet: 'applepay', messageId, pan, expMonth: Number(expiry.slice(2, 4)), expYear: 2000 + Number(expiry.slice(0, 2)),
      ...(cryptogram ? { cryptogram } : {}), ...(eci ? { eci } : {}), ...(currency ? { currency } : {}), ...(amount ? { amount } : {}),
    },
  };
}

/** Verifies and decrypts an Apple Pay EC_v1 token (the paymentData object of the payer's PKPaymentToken). */
export function decryptApplePayToken(value: unknown, config: ApplePayDecryptionConfig): TokenResult<ApplePayCard> {
  const token = readApplePayToken(value);
  if (!token) return refuse('token_malformed');
  if (token.version !== 'EC_v1') return refuse('token_protocol_unsupported');
  const signed = verifySignature(token, config);
  if (!signed.ok) return signed;
  const plaintext = decryptData(token, config);
  if (!plaintext.ok) return plaintext;
  return readCard(plaintext.value, token.header.transactionId);
}
