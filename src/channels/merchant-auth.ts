/**
 * Merchant authentication shared by the channels: the key names the merchant, the hash proves the
 * password. Both failures answer 401 without saying more than D3 allows.
 */
import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../services/context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import { GatewayError, HashMismatch } from '../domain/errors.ts';
import { verifyAny, type UpperMode } from '../domain/signatures.ts';
import { reserveIdempotencyKey } from './idempotency.ts';
import { acceptedPasswords } from '../domain/password-rotation.ts';
import { cidrRanges, ipWithin, parseIp } from '../domain/risk/ip.ts';
import { REQUEST_SIGNATURE_HEADER } from '../domain/request-signature.ts';
import { checkRequestSignature } from '../services/request-signatures.ts';

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
 * Looks the merchant up by key, checks its allowed source addresses, the hash against every accepted recipe and
 * the request signature header.
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
  checkSourceAddress(req, found.merchant);
  if (!verifyMerchantHash(found.merchant, hash, recipes, ctx.clock.now())) throw new HashMismatch(found.merchant);
  await checkSignatureHeader(ctx, req, found.merchant);
  await reserveIdempotencyKey(ctx, req, found.merchant.id);
  return found;
}

// --- the merchant's own guards (issue 25, item 5) ------------------------------------------------------------

/**
 * The merchant's allowed source addresses: when it has set some, a request from any other client address (as
 * TRUST_PROXY lets the gateway see it) is refused before its hash is looked at.
 */
export function checkSourceAddress(req: FastifyRequest, merchant: Merchant): void {
  const list = merchant.settings.allowedSourceAddresses;
  if (!list || list.length === 0) return;
  const ip = parseIp(req.ip);
  if (!cidrRanges(list).some((range) => ipWithin(ip, range))) throw new GatewayError('sourceAddressRefused');
}

/** The raw body the signature covers: what the body parsers read (form or JSON), or a GET's query string. */
function rawBodyOf(req: FastifyRequest): Buffer | string | undefined {
  if (req.method === 'GET') return req.url.split('?')[1] ?? '';
  if (req.isMultipart?.()) return undefined;
  return req.rawBody ?? '';
}

/** After the hash: the merchant's request signature, when sent or when the merchant requires it. */
export async function checkSignatureHeader(ctx: ServiceContext, req: FastifyRequest, merchant: Merchant): Promise<void> {
  await checkRequestSignature(ctx, merchant, { header: req.headers[REQUEST_SIGNATURE_HEADER], rawBody: rawBodyOf(req) });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body's bytes as received, kept only for a request that carries a Portcullis-Signature header. */
    rawBody?: Buffer;
  }
}

/**
 * Keeps the raw body of a request that carries a Portcullis-Signature header (the parsers read the text once and
 * keep none of it): a pass-through of the payload that remembers its chunks. Multipart bodies are read by their
 * plugin from the socket directly, so they cannot be signed.
 */
export function installRawBodyCapture(app: FastifyInstance): void {
  app.addHook('preParsing', async (req, _reply, payload) => {
    if (req.headers[REQUEST_SIGNATURE_HEADER] === undefined) return payload;
    const chunks: Buffer[] = [];
    const copy = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done(null, chunk);
      },
      flush(done) {
        req.rawBody = Buffer.concat(chunks);
        done();
      },
    });
    payload.on('error', (err) => copy.destroy(err));
    return payload.pipe(copy);
  });
}
