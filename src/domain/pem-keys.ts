/**
 * Keys and certificates an operator pastes into the admin panel (wallets, the token-call family), parsed with
 * node:crypto before anything is stored: a certificate must be an X.509 certificate, a key a private key of
 * the expected type. What is shown afterwards is a fingerprint of the public half, never the key.
 */
import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export interface ParsedKey {
  key: KeyObject;
  /** The PEM as it will be sealed (a one-line body is given its markers). */
  pem: string;
  /** sha256 of the public key (SPKI, DER), hex: names the key without revealing it. */
  fingerprint: string;
}

export interface ParsedCertificate {
  pem: string;
  fingerprint: string;
  subject: string;
  validTo: string;
  certificate: X509Certificate;
}

const MARKERS = /-----BEGIN [A-Z ]+-----/;

/** "Pasted as one line between the BEGIN and END markers" (interface spec): the bare base64 body is a PKCS#8 key. */
function asPem(text: string, label: string): string {
  const trimmed = text.trim();
  if (MARKERS.test(trimmed)) return `${trimmed}\n`;
  const body = trimmed.replace(/\s+/g, '');
  return `-----BEGIN ${label}-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
}

export function publicKeyFingerprint(key: KeyObject): string {
  const der = createPublicKey(key).export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

/** A private key; with `types`, only those key types (the wallets' processing keys are EC P-256). */
export function parsePrivateKey(text: string, types?: readonly string[]): Parsed<ParsedKey> {
  const pem = asPem(text, 'PRIVATE KEY');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return { ok: false, message: 'This value is not a valid PEM private key.' };
  }
  if (types && !types.includes(key.asymmetricKeyType ?? '')) {
    return { ok: false, message: `This value should be a private key of type ${types.join(' or ')}.` };
  }
  return { ok: true, value: { key, pem, fingerprint: publicKeyFingerprint(key) } };
}

export function parseCertificate(text: string): Parsed<ParsedCertificate> {
  const pem = asPem(text, 'CERTIFICATE');
  try {
    const certificate = new X509Certificate(pem);
    return {
      ok: true,
      value: { pem, certificate, fingerprint: `sha256:${certificate.fingerprint256.replace(/:/g, '').toLowerCase()}`, subject: certificate.subject, validTo: new Date(certificate.validTo).toISOString() },
    };
  } catch {
    return { ok: false, message: 'This value is not a valid PEM certificate.' };
  }
}
