/**
 * A merchant request's Portcullis-Signature header (issue 25, item 5), checked after the platform's hash: the
 * HMAC with one of the merchant's signing secrets (the current one, and the previous one during a rotation's
 * overlap), a timestamp within the window, and a signature not used before (recorded in the store, so every node
 * refuses a replay). A merchant whose setting is `required` is refused without the header; by default a header
 * that is sent is checked and none is needed, so the platform family's SDKs work unchanged.
 */
import type { ServiceContext } from './context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import { GatewayError } from '../domain/errors.ts';
import { matchingSignature, parseSignatureHeader, REQUEST_SIGNATURE_WINDOW_SECONDS, withinWindow } from '../domain/request-signature.ts';
import { claimRequestSignature } from '../store/request-signature-uses.ts';
import { SigningKeys } from './signing-secrets.ts';

export interface SignedRequest {
  /** The header as received (absent: undefined). */
  header: string | string[] | undefined;
  /** The raw body the header signs; undefined when the request's body could not be kept (multipart). */
  rawBody: Buffer | string | undefined;
}

const fallbackKeys = new WeakMap<object, SigningKeys>();

export async function checkRequestSignature(ctx: ServiceContext, merchant: Merchant, request: SignedRequest): Promise<void> {
  if (request.header === undefined) {
    if (merchant.settings.requestSignature === 'required') throw new GatewayError('requestSignatureRequired');
    return;
  }
  const parsed = parseSignatureHeader(request.header);
  if (!parsed || request.rawBody === undefined) throw new GatewayError('requestSignatureInvalid');
  const now = ctx.clock.now();
  if (!withinWindow(parsed.timestamp, now)) throw new GatewayError('requestSignatureExpired');
  let signingKeys = ctx.signingKeys;
  if (!signingKeys) {
    signingKeys = fallbackKeys.get(ctx) ?? new SigningKeys(ctx);
    fallbackKeys.set(ctx, signingKeys as SigningKeys);
  }
  const keys = await signingKeys.keysFor(merchant.id);
  const signature = matchingSignature(keys.expose(), parsed, request.rawBody);
  if (!signature) throw new GatewayError('requestSignatureInvalid');
  const expiresAt = new Date((parsed.timestamp + REQUEST_SIGNATURE_WINDOW_SECONDS) * 1000);
  if (!(await claimRequestSignature(ctx.db, { merchantId: merchant.id, signature, expiresAt, now }))) throw new GatewayError('requestSignatureReplayed');
}
