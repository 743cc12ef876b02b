/**
 * Google Pay payment tokens, protocol ECv2 (Google's "Payment data cryptography" for merchants that decrypt):
 * the intermediate signing key is verified against Google's root keys, the message signature against the
 * intermediate key with our recipientId, then ECDH + HKDF-SHA256 + HMAC-SHA256 + AES-256-CTR.
 * Pure: no I/O, the clock is given. Every refusal is a reason from WALLET_DECLINES, never an exception.
 */
import { createDecipheriv, createHmac, createPublicKey, diffieHellman, hkdfSync, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { type TokenResult, refuse, parseJsonObject, stringField } from './token-result.ts';

export const GOOGLE_PROTOCOL = 'ECv2';
const SENDER_ID = 'Google';

/** One of Google's root signing keys (the JSON Google publishes: keyValue is a base64 SPKI DER key). */
export interface GoogleRootKey {
  keyValue: string;
  protocolVersion: string;
  /** Milliseconds since the epoch, as a string; absent: no expiry. */
  keyExpiration?: string;
}

export interface GooglePayDecryptionConfig {
  /** "gateway:<gateway id>" or "merchant:<merchant id>": what the payer's Google Pay signed the message for. */
  recipientId: string;
  rootKeys: readonly GoogleRootKey[];
  /** The merchant's P-256 private keys (more than one while a key is being rotated). */
  privateKeys: readonly KeyObject[];
  now: Date;
}

/** The decrypted card, as Google sends it (authMethod CRYPTOGRAM_3DS carries a cryptogram). */
export interface GooglePayCard {
  wallet: 'googlepay';
  /** The replay key: a token is accepted once. */
  messageId: string;
  expiresAt: Date;
  pan: string;
  expMonth: number;
  expYear: number;
  authMethod: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  cryptogram?: string;
  eci?: string;
  gatewayMerchantId?: string;
}

/** Google's length-prefixed concatenation: each part preceded by its byte length, 4 bytes little-endian. */
export function lengthPrefixed(...parts: string[]): Buffer {
  return Buffer.concat(parts.flatMap((part) => {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    return [length, bytes];
  }));
}

function spkiKey(base64: string): KeyObject | undefined {
  try {
    return createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

function verifies(key: KeyObject, data: Buffer, signatureB64: unknown): boolean {
  if (typeof signatureB64 !== 'string') return false;
  try {
    return verify('sha256', data, { key, dsaEncoding: 'der' }, Buffer.from(signatureB64, 'base64'));
  } catch {
    return false;
  }
}

const notExpired = (expiration: string | undefined, now: Date): boolean =>
  expiration === undefined || (/^\d+$/.test(expiration) && Number(expiration) > now.getTime());

interface Envelope { signature: string; signedMessage: string; signedKey: string; keySignatures: unknown[] }

function readEnvelope(token: string): TokenResult<Envelope> {
  const outer = parseJsonObject(token);
  if (!outer) return refuse('token_malformed');
  if (outer.protocolVersion !== GOOGLE_PROTOCOL) return refuse('token_protocol_unsupported');
  const intermediate = outer.intermediateSigningKey as Record<string, unknown> | undefined;
  const signature = stringField(outer, 'signature');
  const signedMessage = stringField(outer, 'signedMessage');
  const signedKey = intermediate && stringField(intermediate, 'signedKey');
  const keySignatures = intermediate?.signatures;
  if (!signature || !signedMessage || !signedKey || !Array.isArray(keySignatures)) return refuse('token_malformed');
  return { ok: true, value: { signature, signedMessage, signedKey, keySignatures } };
}

/** The intermediate key, if one of the configured ECv2 roots (not expired) signed it and it is not expired itself. */
function verifiedIntermediateKey(envelope: Envelope, config: GooglePayDecryptionConfig): TokenResult<KeyObject> {
  const roots = config.rootKeys
    .filter((root) => root.protocolVersion === GOOGLE_PROTOCOL && notExpired(root.keyExpiration, config.now))
    .map((root) => spkiKey(root.keyValue))
    .filter((key): key is KeyObject => key !== undefined);
  const signed = lengthPrefixed(SENDER_ID, GOOGLE_PROTOCOL, envelope.signedKey);
  const trusted = roots.some((root) => envelope.keySignatures.some((sig) => verifies(root, signed, sig)));
  if (!trusted) return refuse('intermediate_key_untrusted');
  const key = parseJsonObject(envelope.signedKey);
  const keyValue = key && stringField(key, 'keyValue');
  const expiration = key && stringField(key, 'keyExpiration');
  if (!keyValue || !expiration) return refuse('token_malformed');
  if (!notExpired(expiration, config.now)) return refuse('intermediate_key_expired');
  const intermediate = spkiKey(keyValue);
  return intermediate ? { ok: true, value: intermediate } : refuse('token_malformed');
}

/** HKDF-SHA256 over ephemeral public key || shared secret, info "Google": 32 bytes AES key, then 32 bytes MAC key. */
function deriveKeys(privateKey: KeyObject, ephemeral: Buffer): { aes: Buffer; mac: Buffer } | undefined {
  try {
    const publicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64url(ephemeral.subarray(1, 33)), y: b64url(ephemeral.subarray(33, 65)) }, format: 'jwk' });
    const shared = diffieHellman({ privateKey, publicKey });
    const okm = Buffer.from(hkdfSync('sha256', Buffer.concat([ephemeral, shared]), Buffer.alloc(32), SENDER_ID, 64));
    return { aes: okm.subarray(0, 32), mac: okm.subarray(32, 64) };
  } catch {
    return undefined;
  }
}

const b64url = (bytes: Buffer): string => bytes.toString('base64url');

/** The plaintext, if one of the merchant's keys yields a matching tag (checked in constant time). */
function decryptMessage(signedMessage: string, privateKeys: readonly KeyObject[]): TokenResult<string> {
  const message = parseJsonObject(signedMessage);
  const encrypted = message && stringField(message, 'encryptedMessage');
  const ephemeralB64 = message && stringField(message, 'ephemeralPublicKey');
  const tagB64 = message && stringField(message, 'tag');
  if (!encrypted || !ephemeralB64 || !tagB64) return refuse('token_malformed');
  const ephemeral = Buffer.from(ephemeralB64, 'base64');
  if (ephemeral.length !== 65 || ephemeral[0] !== 0x04) return refuse('token_malformed');
  const ciphertext = Buffer.from(encrypted, 'base64');
  const tag = Buffer.from(tagB64, 'base64');
  for (const privateKey of privateKeys) {
    const keys = deriveKeys(privateKey, ephemeral);
    if (!keys) continue;
    const expected = createHmac('sha256', keys.mac).update(ciphertext).digest();
    if (tag.length !== expected.length || !timingSafeEqual(tag, expected)) continue;
    const decipher = createDecipheriv('aes-256-ctr', keys.aes, Buffer.alloc(16));
    return { ok: true, value: Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8') };
  }
  return refuse('token_tag_mismatch');
}

function readCard(plaintext: string, now: Date): TokenResult<GooglePayCard> {
  const message = parseJsonObject(plaintext);
  const details = message?.paymentMethodDetails as Record<string, unknown> | undefined;
  const messageId = message && stringField(message, 'messageId');
  const expiration = message && stringField(message, 'messageExpiration');
  if (!message || !details || !messageId || !expiration || !/^\d+$/.test(expiration)) return refuse('token_malformed');
  if (Number(expiration) <= now.getTime()) return refuse('token_expired');
  if (message.paymentMethod !== 'CARD') return refuse('token_payment_method_unsupported');
  const pan = stringField(details, 'pan');
  const expMonth = Number(details.expirationMonth);
  const expYear = Number(details.expirationYear);
  const authMethod = details.authMethod;
  if (!pan || !/^\d{12,19}$/.test(pan) || !Number.isInteger(expMonth) || !Number.isInteger(expYear)) return refuse('token_malformed');
  if (authMethod !== 'PAN_ONLY' && authMethod !== 'CRYPTOGRAM_3DS') return refuse('token_malformed');
  const cryptogram = stringField(details, 'cryptogram');
  if (authMethod === 'CRYPTOGRAM_3DS' && !cryptogram) return refuse('token_malformed');
  const eci = stringField(details, 'eciIndicator');
  const gatewayMerchantId = stringField(message, 'gatewayMerchantId');
  return {
    ok: true,
    value: {
      wallet: 'googlepay', messageId, expiresAt: new Date(Number(expiration)), pan, expMonth, expYear, authMethod,
      ...(cryptogram ? { cryptogram } : {}), ...(eci ? { eci } : {}), ...(gatewayMerchantId ? { gatewayMerchantId } : {}),
    },
  };
}

/** Verifies and decrypts a Google Pay ECv2 token (the JSON string the payer's Google Pay returned). */
export function decryptGooglePayToken(token: string, config: GooglePayDecryptionConfig): TokenResult<GooglePayCard> {
  const envelope = readEnvelope(token);
  if (!envelope.ok) return envelope;
  const intermediate = verifiedIntermediateKey(envelope.value, config);
  if (!intermediate.ok) return intermediate;
  const signed = lengthPrefixed(SENDER_ID, config.recipientId, GOOGLE_PROTOCOL, envelope.value.signedMessage);
  if (!verifies(intermediate.value, signed, envelope.value.signature)) return refuse('token_signature_invalid');
  const plaintext = decryptMessage(envelope.value.signedMessage, config.privateKeys);
  if (!plaintext.ok) return plaintext;
  return readCard(plaintext.value, config.now);
}
