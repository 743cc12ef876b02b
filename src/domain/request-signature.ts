/**
 * The request signature header (issue 25, item 5): what the platform family's hash formulas cannot give (they bind
 * no amount, no currency and no time, so a captured request replays forever), a merchant's server adds beside them:
 *
 *   Portcullis-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(key, t + "." + raw body)>
 *
 * `key` is the merchant's signing secret (`whsec_...`, the one that signs callbacks) base64-decoded, as for
 * callbacks; the raw body is the request's bytes as sent (for a GET, the query string after `?`). The gateway
 * accepts a timestamp within REQUEST_SIGNATURE_WINDOW_SECONDS of its clock, and each signature once
 * (services/request-signatures.ts keeps the used ones in the store). Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const REQUEST_SIGNATURE_HEADER = 'portcullis-signature';
/** How far a signature's timestamp may be from the gateway's clock, either way. */
export const REQUEST_SIGNATURE_WINDOW_SECONDS = 300;

/** A merchant's choice: `optional` (the default) checks a header that is sent; `required` refuses a request without one. */
export const REQUEST_SIGNATURE_MODES = ['optional', 'required'] as const;
export type RequestSignatureMode = (typeof REQUEST_SIGNATURE_MODES)[number];

export interface ParsedSignature {
  timestamp: number;
  /** Lower-case hex, one per secret the client signed with. */
  signatures: string[];
}

/** The string the HMAC covers. */
export const signedPayload = (timestamp: number, rawBody: string | Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody]);

export function requestSignature(key: Buffer, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', key).update(signedPayload(timestamp, rawBody)).digest('hex');
}

/** The header's value for a body, as the SDK sends it. */
export function requestSignatureHeader(key: Buffer, timestamp: number, rawBody: string | Buffer): string {
  return `t=${timestamp},v1=${requestSignature(key, timestamp, rawBody)}`;
}

/** `t=...,v1=...[,v1=...]`; undefined when the header is not of that form. */
export function parseSignatureHeader(header: string | string[] | undefined): ParsedSignature | undefined {
  if (typeof header !== 'string' || header.length > 1024) return undefined;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return undefined;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (name === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return undefined;
      signatures.push(value.toLowerCase());
    }
  }
  return timestamp === undefined || signatures.length === 0 || signatures.length > 4 ? undefined : { timestamp, signatures };
}

export const withinWindow = (timestamp: number, now: Date): boolean =>
  Math.abs(now.getTime() / 1000 - timestamp) <= REQUEST_SIGNATURE_WINDOW_SECONDS;

/** The given signature that one of the keys makes over the body, compared in constant time; undefined when none. */
export function matchingSignature(keys: readonly Buffer[], parsed: ParsedSignature, rawBody: string | Buffer): string | undefined {
  const expected = keys.map((k) => Buffer.from(requestSignature(k, parsed.timestamp, rawBody), 'utf8'));
  return parsed.signatures.find((given) => {
    const g = Buffer.from(given, 'utf8');
    return expected.some((e) => e.length === g.length && timingSafeEqual(e, g));
  });
}
