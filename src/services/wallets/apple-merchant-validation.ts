/**
 * Apple Pay merchant validation through the gateway (live merchants' hosted pages). The page's ApplePaySession
 * hands its `validationURL` to the gateway, which asks Apple for a merchant session with the merchant's identity
 * certificate and key (mutual TLS; the Wallets tab holds both) and hands the opaque answer back to the page.
 * The URL comes from the payer's browser, so only Apple's payment gateway hosts are ever called (no SSRF).
 */
import https from 'node:https';
import type { AppleSessionPort, MerchantSessionRequest, ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { loadMerchantConfig, openWalletSecrets } from '../../store/merchant-config-repo.ts';
import { walletSetup } from './wallet-tokens.ts';

/** apple-pay-gateway.apple.com, cn-apple-pay-gateway.apple.com, their -cert (sandbox) and -xx-podN hosts. */
const APPLE_VALIDATION_HOST = /^(cn-)?apple-pay-gateway(-cert|-[a-z]{2}-pod[0-9]{1,2})?\.apple\.com$/;

/** The validation URL if it names one of Apple's hosts over HTTPS on the default port. */
export function appleValidationUrl(raw: unknown): URL | undefined {
  if (typeof raw !== 'string' || raw.length > 512) return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' && url.port === '' && !url.username && !url.password && APPLE_VALIDATION_HOST.test(url.hostname) ? url : undefined;
  } catch {
    return undefined;
  }
}

export type { AppleSessionPort, MerchantSessionRequest };

export const nodeAppleSessionPort: AppleSessionPort = (req) => new Promise((resolve, reject) => {
  const request = https.request(req.url, {
    method: 'POST', cert: req.certificatePem, key: req.keyPem, timeout: 10_000,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(req.body) },
  }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    res.on('error', reject);
  });
  request.on('timeout', () => request.destroy(new Error('Apple merchant validation timed out')));
  request.on('error', reject);
  request.end(req.body);
});

/** The opaque merchant session Apple returns, for ApplePaySession.completeMerchantValidation. */
export async function validateAppleMerchant(ctx: ServiceContext, merchant: Merchant, validationUrl: unknown): Promise<unknown> {
  const send = ctx.appleSessionPort ?? nodeAppleSessionPort;
  const url = appleValidationUrl(validationUrl);
  if (!url) throw GatewayError.field('validation_url', MESSAGES.notUrl);
  const setup = await walletSetup(ctx, merchant, 'applepay');
  const config = await loadMerchantConfig(ctx.db, ctx.keyring, merchant.id);
  if (!setup.enabled || !config) throw new GatewayError('actionNotSupported');
  const settings = setup.settings as unknown as { merchantIdentifier: string; shopName: string; certificate: { pem: string } };
  const keyPem = openWalletSecrets(ctx.keyring, config).expose().apple_pay_private_key;
  if (typeof keyPem !== 'string') throw new GatewayError('actionNotSupported');
  const body = JSON.stringify({
    merchantIdentifier: settings.merchantIdentifier,
    displayName: settings.shopName,
    initiative: 'web',
    // The hosted page runs on the gateway's own domain (registered and verified with Apple for the merchant).
    initiativeContext: new URL(ctx.baseUrl).hostname,
  });
  try {
    const answer = await send({ url, certificatePem: settings.certificate.pem, keyPem, body });
    if (answer.status === 200) return JSON.parse(answer.body) as unknown;
    ctx.logger.warn({ merchantId: merchant.id, status: answer.status }, 'Apple Pay merchant validation refused');
  } catch (err) {
    ctx.logger.warn({ merchantId: merchant.id, err: (err as Error).message }, 'Apple Pay merchant validation failed');
  }
  throw new GatewayError('unavailable');
}
