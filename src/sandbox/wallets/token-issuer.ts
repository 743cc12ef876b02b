/**
 * A stand-in for Apple's and Google's token servers, for the sandbox and for tests: its own test roots (a Google
 * root signing key; an Apple root CA with an intermediate and a leaf carrying Apple's marker extensions) and
 * tokens genuinely encrypted for a merchant's key and signed through that chain, by the published formats. A gateway
 * that trusts these roots (the sandbox only) decrypts them exactly as it decrypts real tokens.
 * The options that break a token (tamper, expiries, markers) exist so tests can show each check refusing it.
 */
import {
  createCipheriv, createHash, createHmac, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, KeyObject,
  randomBytes, sign, webcrypto, X509Certificate,
} from 'node:crypto';
import * as asn1js from 'asn1js';
import {
  Attribute, AttributeTypeAndValue, BasicConstraints, Certificate, ContentInfo, EncapsulatedContentInfo, Extension,
  IssuerAndSerialNumber, SignedAndUnsignedAttributes, SignedData, SignerInfo,
} from 'pkijs';
import { GOOGLE_PROTOCOL, lengthPrefixed, type GoogleRootKey } from '../../domain/wallets/google-pay-token.ts';
import {
  APPLE_INTERMEDIATE_MARKER, APPLE_LEAF_MARKER, APPLE_MERCHANT_ID_EXTENSION, appleSignedContent, applePublicKeyHash, type ApplePayToken,
} from '../../domain/wallets/apple-pay-token.ts';

export interface TestCard {
  pan: string;
  expMonth: number;
  expYear: number;
  /** Present: a CRYPTOGRAM_3DS (Google) / 3DSecure (Apple) token; absent: PAN_ONLY. */
  cryptogram?: string;
  eci?: string;
}

type Tamper = 'ciphertext' | 'tag';

const DAY = 86_400_000;
const ecKeyPair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicOf = (key: KeyObject): KeyObject => (key.type === 'public' ? key : createPublicKey(key));
const spkiBase64 = (key: KeyObject) => publicOf(key).export({ type: 'spki', format: 'der' }).toString('base64');

function uncompressedPoint(key: KeyObject): Buffer {
  const jwk = publicOf(key).export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([0x04]), Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]);
}

function flipFirstByte(bytes: Buffer): Buffer<ArrayBuffer> {
  const copy = Buffer.from(bytes);
  copy[0] = (copy[0] ?? 0) ^ 0x01;
  return copy;
}

// ---------------------------------------------------------------- Google Pay ECv2

export interface GoogleTokenOptions {
  recipientId: string;
  /** The merchant's public key (the token is encrypted for it). */
  merchantPublicKey: KeyObject;
  card: TestCard;
  now?: Date;
  messageId?: string;
  messageExpiration?: Date;
  intermediateKeyExpiration?: Date;
  gatewayMerchantId?: string;
  /** Corrupts the ciphertext or the tag before the message is signed (so only the tag check can notice). */
  tamper?: Tamper;
}

export class GooglePayTestIssuer {
  /** The root keys a gateway must trust to accept this issuer's tokens (Google's published JSON shape). */
  readonly rootKeys: GoogleRootKey[];

  /** `root`: a fixed root signing key (the sandbox's, the same on every node); default a new one. */
  constructor(private readonly root: { privateKey: KeyObject; publicKey: KeyObject } = ecKeyPair()) {
    this.rootKeys = [{ keyValue: spkiBase64(root.publicKey), protocolVersion: GOOGLE_PROTOCOL, keyExpiration: String(Date.now() + 3650 * DAY) }];
  }

  issue(o: GoogleTokenOptions): string {
    const now = o.now ?? new Date();
    const intermediate = ecKeyPair();
    const signedKey = JSON.stringify({
      keyValue: spkiBase64(intermediate.publicKey),
      keyExpiration: String((o.intermediateKeyExpiration ?? new Date(now.getTime() + DAY)).getTime()),
    });
    const plaintext = JSON.stringify({
      messageExpiration: String((o.messageExpiration ?? new Date(now.getTime() + 3600_000)).getTime()),
      messageId: o.messageId ?? `AH2Ejt${randomBytes(24).toString('base64url')}`,
      paymentMethod: 'CARD',
      paymentMethodDetails: {
        pan: o.card.pan, expirationMonth: o.card.expMonth, expirationYear: o.card.expYear,
        authMethod: o.card.cryptogram ? 'CRYPTOGRAM_3DS' : 'PAN_ONLY',
        ...(o.card.cryptogram ? { cryptogram: o.card.cryptogram } : {}), ...(o.card.eci ? { eciIndicator: o.card.eci } : {}),
      },
      ...(o.gatewayMerchantId ? { gatewayMerchantId: o.gatewayMerchantId } : {}),
    });
    const signedMessage = JSON.stringify(encryptForGoogle(plaintext, o.merchantPublicKey, o.tamper));
    const sig = (data: Buffer, key: KeyObject) => sign('sha256', data, { key, dsaEncoding: 'der' }).toString('base64');
    return JSON.stringify({
      signature: sig(lengthPrefixed('Google', o.recipientId, GOOGLE_PROTOCOL, signedMessage), intermediate.privateKey),
      intermediateSigningKey: { signedKey, signatures: [sig(lengthPrefixed('Google', GOOGLE_PROTOCOL, signedKey), this.root.privateKey)] },
      protocolVersion: GOOGLE_PROTOCOL,
      signedMessage,
    });
  }
}

function encryptForGoogle(plaintext: string, merchantPublicKey: KeyObject, tamper?: Tamper) {
  const ephemeral = ecKeyPair();
  const ephemeralPoint = uncompressedPoint(ephemeral.publicKey);
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: merchantPublicKey });
  const okm = Buffer.from(hkdfSync('sha256', Buffer.concat([ephemeralPoint, shared]), Buffer.alloc(32), 'Google', 64));
  const cipher = createCipheriv('aes-256-ctr', okm.subarray(0, 32), Buffer.alloc(16));
  let ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  let tag = createHmac('sha256', okm.subarray(32, 64)).update(ciphertext).digest();
  if (tamper === 'ciphertext') ciphertext = flipFirstByte(ciphertext);
  if (tamper === 'tag') tag = flipFirstByte(tag);
  return { encryptedMessage: ciphertext.toString('base64'), ephemeralPublicKey: ephemeralPoint.toString('base64'), tag: tag.toString('base64') };
}

// ---------------------------------------------------------------- Apple Pay EC_v1

export interface AppleTokenOptions {
  /** The public half of the merchant's payment processing key. */
  merchantPublicKey: KeyObject;
  /** SHA-256 of the merchant identifier (what the merchant certificate carries). */
  merchantIdHash: Buffer;
  card: TestCard;
  signingTime?: Date;
  transactionId?: string;
  amountMinor?: number;
  currencyNumeric?: string;
  tamper?: Tamper;
}

interface CertifiedKey { certificate: Certificate; privateKey: webcrypto.CryptoKey }

const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' } as const;

async function newCertificate(p: {
  subject: string; issuer?: CertifiedKey; subjectKeys: webcrypto.CryptoKeyPair; ca: boolean; extensions?: Extension[]; issuerName?: string;
}): Promise<Certificate> {
  const certificate = new Certificate();
  certificate.version = 2;
  const serial = randomBytes(9);
  // Positive and minimally encoded: a leading zero byte (or the sign bit) would make a non-DER INTEGER.
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  certificate.serialNumber = new asn1js.Integer({ valueHex: serial });
  const name = (cn: string) => [new AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: cn }) })];
  certificate.subject.typesAndValues = name(p.subject);
  certificate.issuer.typesAndValues = p.issuer ? p.issuer.certificate.subject.typesAndValues : name(p.subject);
  certificate.notBefore.value = new Date(Date.now() - DAY);
  certificate.notAfter.value = new Date(Date.now() + 365 * DAY);
  const constraints = new BasicConstraints({ cA: p.ca });
  certificate.extensions = [
    new Extension({ extnID: '2.5.29.19', critical: true, extnValue: constraints.toSchema().toBER(false), parsedValue: constraints }),
    ...(p.extensions ?? []),
  ];
  await certificate.subjectPublicKeyInfo.importKey(p.subjectKeys.publicKey);
  await certificate.sign((p.issuer?.privateKey ?? p.subjectKeys.privateKey), 'SHA-256');
  return certificate;
}

const markerExtension = (oid: string) => new Extension({ extnID: oid, critical: false, extnValue: new asn1js.Null().toBER(false) });
const generate = async () => await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify']) as webcrypto.CryptoKeyPair;
/** A node:crypto EC private key as the WebCrypto pair pkijs signs with. */
async function importPair(privateKey: KeyObject): Promise<webcrypto.CryptoKeyPair> {
  const jwk = privateKey.export({ format: 'jwk' });
  const { d: _d, ...publicJwk } = jwk;
  return {
    privateKey: await webcrypto.subtle.importKey('jwk', jwk, ECDSA, true, ['sign']),
    publicKey: await webcrypto.subtle.importKey('jwk', publicJwk, ECDSA, true, ['verify']),
  };
}

const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(new Uint8Array(der)).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;

export class ApplePayTestIssuer {
  private constructor(
    /** The root a gateway must trust to accept this issuer's tokens. */
    readonly rootCertificatePem: string,
    private readonly leaf: CertifiedKey,
    private readonly intermediate: Certificate,
  ) {}

  /**
   * A new chain; `markers: false` leaves Apple's marker extensions out of leaf and intermediate. `rootKey`: a fixed
   * root key (the sandbox's): every node then makes a root that verifies the others' chains (same name, same key).
   */
  static async create(o: { markers?: boolean; rootKey?: KeyObject } = {}): Promise<ApplePayTestIssuer> {
    const markers = o.markers ?? true;
    const rootKeys = o.rootKey ? await importPair(o.rootKey) : await generate();
    const root: CertifiedKey = { certificate: await newCertificate({ subject: 'Portcullis Sandbox Apple Root CA - G3', subjectKeys: rootKeys, ca: true }), privateKey: rootKeys.privateKey };
    const intermediateKeys = await generate();
    const intermediateCert = await newCertificate({
      subject: 'Portcullis Sandbox Apple Application Integration CA - G3', issuer: root, subjectKeys: intermediateKeys, ca: true,
      extensions: markers ? [markerExtension(APPLE_INTERMEDIATE_MARKER)] : [],
    });
    const leafKeys = await generate();
    const leafCert = await newCertificate({
      subject: 'ecc-smp-broker-sign_UC4-SANDBOX', issuer: { certificate: intermediateCert, privateKey: intermediateKeys.privateKey }, subjectKeys: leafKeys, ca: false,
      extensions: markers ? [markerExtension(APPLE_LEAF_MARKER)] : [],
    });
    return new ApplePayTestIssuer(pem('CERTIFICATE', root.certificate.toSchema().toBER(false)), { certificate: leafCert, privateKey: leafKeys.privateKey }, intermediateCert);
  }

  get rootCertificate(): X509Certificate {
    return new X509Certificate(this.rootCertificatePem);
  }

  async issue(o: AppleTokenOptions): Promise<ApplePayToken> {
    const transactionId = o.transactionId ?? randomBytes(32).toString('hex');
    const plaintext = JSON.stringify({
      applicationPrimaryAccountNumber: o.card.pan,
      applicationExpirationDate: `${String(o.card.expYear % 100).padStart(2, '0')}${String(o.card.expMonth).padStart(2, '0')}31`,
      currencyCode: o.currencyNumeric ?? '978',
      transactionAmount: o.amountMinor ?? 1000,
      deviceManufacturerIdentifier: '040010030273',
      paymentDataType: '3DSecure',
      paymentData: { onlinePaymentCryptogram: o.card.cryptogram ?? randomBytes(20).toString('base64'), ...(o.card.eci ? { eciIndicator: o.card.eci } : {}) },
    });
    const ephemeral = ecKeyPair();
    const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: o.merchantPublicKey });
    const key = createHash('sha256').update(Buffer.concat([
      Buffer.from([0, 0, 0, 1]), shared, Buffer.from([0x0d]), Buffer.from('id-aes256-GCM'), Buffer.from('Apple'), o.merchantIdHash,
    ])).digest();
    const cipher = createCipheriv('aes-256-gcm', key, Buffer.alloc(16));
    let ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    let tag = cipher.getAuthTag();
    if (o.tamper === 'ciphertext') ciphertext = flipFirstByte(ciphertext);
    if (o.tamper === 'tag') tag = flipFirstByte(tag);
    const token: ApplePayToken = {
      version: 'EC_v1',
      data: Buffer.concat([ciphertext, tag]).toString('base64'),
      signature: '',
      header: { ephemeralPublicKey: spkiBase64(ephemeral.publicKey), publicKeyHash: applePublicKeyHash(o.merchantPublicKey), transactionId },
    };
    token.signature = await this.signDetached(appleSignedContent(token), o.signingTime ?? new Date());
    return token;
  }

  /** A detached CMS SignedData over `content`, signed by the leaf, carrying leaf and intermediate. */
  private async signDetached(content: Buffer, signingTime: Date): Promise<string> {
    const digest = createHash('sha256').update(content).digest();
    const signedData = new SignedData({
      version: 1,
      encapContentInfo: new EncapsulatedContentInfo({ eContentType: '1.2.840.113549.1.7.1' }),
      signerInfos: [new SignerInfo({
        version: 1,
        sid: new IssuerAndSerialNumber({ issuer: this.leaf.certificate.issuer, serialNumber: this.leaf.certificate.serialNumber }),
        signedAttrs: new SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new Attribute({ type: '1.2.840.113549.1.9.3', values: [new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.7.1' })] }),
            new Attribute({ type: '1.2.840.113549.1.9.5', values: [new asn1js.UTCTime({ valueDate: signingTime })] }),
            new Attribute({ type: '1.2.840.113549.1.9.4', values: [new asn1js.OctetString({ valueHex: digest })] }),
          ],
        }),
      })],
      certificates: [this.leaf.certificate, this.intermediate],
    });
    await signedData.sign(this.leaf.privateKey, 0, 'SHA-256', new Uint8Array(content));
    const info = new ContentInfo({ contentType: ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) });
    return Buffer.from(info.toSchema().toBER(false)).toString('base64');
  }
}

/**
 * A merchant's Apple Pay identity for tests and the sandbox: a certificate carrying the merchant identifier
 * extension (as Apple's merchant certificates do) with its private key, and a payment processing key.
 */
export async function createAppleMerchantIdentity(merchantIdentifier: string) {
  const keys = await generate();
  const idHash = createHash('sha256').update(merchantIdentifier, 'utf8').digest('hex');
  const extension = new Extension({
    extnID: APPLE_MERCHANT_ID_EXTENSION, critical: false, extnValue: new asn1js.Utf8String({ value: idHash }).toBER(false),
  });
  const certificate = await newCertificate({ subject: `Merchant ID: ${merchantIdentifier}`, subjectKeys: keys, ca: false, extensions: [extension] });
  const processing = ecKeyPair();
  return {
    certificatePem: pem('CERTIFICATE', certificate.toSchema().toBER(false)),
    privateKeyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    processingPrivateKeyPem: processing.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    processingPublicKey: processing.publicKey,
    merchantIdHash: Buffer.from(idHash, 'hex'),
  };
}

