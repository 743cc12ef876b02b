/**
 * Merchant authentication shared by the channels: the key names the merchant, the hash proves the
 * password. Both failures answer 401 without saying more than D3 allows.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../services/context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import { GatewayError, HashMismatch } from '../domain/errors.ts';
import { verifyAny, type UpperMode } from '../domain/signatures.ts';
import { reserveIdempotencyKey } from './idempotency.ts';
import { acceptedPasswords } from '../domain/password-rotation.ts';

type Recipes = (merchant: Merchant) => ReadonlyArray<(upper: UpperMode) => string>;

/**
 * Checks a merchant's hash with the current password and, during the grace period after a rotation, with the
 * previous one (the recipes are built once per accepted password, so every channel's formulas take part).
 */
export function verifyMerchantHash(merchant: Merchant, hash: unknown, recipes: Recipes, now: Date): boolean {
  return acceptedPasswords(merchant, now).some((password) =>
    verifyAny(hash, recipes(password === merchant.password ? merchant : { ...merchant, password })));
}

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
  recipes: Recipes,
): Promise<Authenticated> {
  const found = await ctx.merchants.byMerchantKey(key);
  if (!found) throw new GatewayError('merchantNotFound');
  if (!verifyMerchantHash(found.merchant, hash, recipes, ctx.clock.now())) throw new HashMismatch(found.merchant);
  await reserveIdempotencyKey(ctx, req, found.merchant.id);
  return found;
}
