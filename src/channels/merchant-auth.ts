/**
 * Merchant authentication shared by the channels: the key names the merchant, the hash proves the
 * password. Both failures answer 401 without saying more than D3 allows.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../services/context.ts';
import type { Merchant, Mid } from '../store/merchants-repo.ts';
import { GatewayError, HashMismatch } from '../domain/errors.ts';
import { verifyAny, type UpperMode } from '../domain/signatures.ts';
import { reserveIdempotencyKey } from './idempotency.ts';

export interface Authenticated {
  merchant: Merchant;
  mids: Mid[];
}

/**
 * Looks the merchant up by key and checks the hash against every accepted recipe.
 * `recipes` builds, for the merchant, the functions that compute an acceptable hash. Once authenticated, the
 * request's Idempotency-Key (if any) is reserved.
 */
export async function authenticate(
  ctx: ServiceContext,
  req: FastifyRequest,
  key: string,
  hash: unknown,
  recipes: (merchant: Merchant) => ReadonlyArray<(upper: UpperMode) => string>,
): Promise<Authenticated> {
  const found = await ctx.merchants.byMerchantKey(key);
  if (!found) throw new GatewayError('merchantNotFound');
  if (!verifyAny(hash, recipes(found.merchant))) throw new HashMismatch(found.merchant);
  await reserveIdempotencyKey(ctx, req, found.merchant.id);
  return found;
}
