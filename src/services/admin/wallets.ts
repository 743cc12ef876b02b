/**
 * The Wallets tab of a merchant (interface spec "Wallet settings"): Apple Pay and Google Pay configuration,
 * stored, validated and masked here; using it is the wallets issue's. Certificates and keys are parsed with
 * node:crypto before anything is stored (a certificate must be one, the processing keys EC keys, the Apple
 * Pay merchant identity key the certificate's own). Private keys are sealed with the vault keyring and never
 * leave again: answers and the audit log show their fingerprints.
 */
import { entityTag, ifMatchHolds } from '../../domain/entity-tags.ts';
import { createHash } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { parseCertificate, parsePrivateKey, type ParsedKey } from '../../domain/pem-keys.ts';
import { loadMerchantConfig, openWalletSecrets, writeMerchantWallets } from '../../store/merchant-config-repo.ts';
import { walletSecretsOwner } from '../../store/secret-rotation.ts';
import { sealSecret, type SecretFields } from '../../store/sealed-secrets.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { isUuid } from '../../domain/ids.ts';

export const APPLE_PAY_CAPABILITIES = ['supports3DS', 'supportsEMV', 'supportsCredit', 'supportsDebit'] as const;
export const APPLE_PAY_NETWORKS = ['amex', 'cartesBancaires', 'chinaUnionPay', 'discover', 'eftpos', 'electron', 'elo', 'interac', 'jcb', 'mada', 'maestro', 'masterCard', 'mir', 'privateLabel', 'visa', 'vPay'] as const;
export const GOOGLE_PAY_AUTH_METHODS = ['PAN_ONLY', 'CRYPTOGRAM_3DS'] as const;
export const GOOGLE_PAY_NETWORKS = ['AMEX', 'DISCOVER', 'ELECTRON', 'ELO', 'ELO_DEBIT', 'INTERAC', 'JCB', 'MAESTRO', 'MASTERCARD', 'VISA'] as const;

/** Processing keys are P-256 EC keys (both wallets' token encryption); the identity key may be RSA (Apple issues RSA 2048). */
const EC = ['ec'] as const;
const IDENTITY_KEY_TYPES = ['ec', 'rsa'] as const;

type KeyView = { set: true; fingerprint: string } | null;

interface StoredCertificate { pem: string; fingerprint: string; subject: string; validTo: string }

interface StoredApplePay {
  enabled: boolean;
  merchantIdentifier: string;
  country: string;
  shopName: string;
  certificate: StoredCertificate;
  privateKeyFingerprint: string;
  processingKeyFingerprint: string | null;
  merchantCapabilities: string[];
  supportedNetworks: string[];
  domains: string[];
  /** Apple's domain-association file, as uploaded: served as-is at /.well-known/ (services/wallets/apple-domain.ts). */
  domainAssociation?: StoredDomainAssociation;
}

export interface StoredDomainAssociation { content: string; sha256: string; uploadedAt: string }

interface StoredGooglePay {
  enabled: boolean;
  environment: 'TEST' | 'PRODUCTION';
  allowedAuthMethods: string[];
  supportedNetworks: string[];
  merchantIdentifier: string;
  gateway: string;
  gatewayMerchantId: string;
  privateKeyFingerprint: string | null;
  extraParameters: boolean;
}

interface StoredWallets {
  applePay?: StoredApplePay;
  googlePay?: StoredGooglePay;
}

/** A secret field of a request: a PEM replaces, null removes, absent keeps what is stored. */
type SecretInput = string | null | undefined;

export interface ApplePayInput {
  enabled?: boolean;
  merchant_identifier: string;
  country: string;
  shop_name: string;
  certificate?: string;
  private_key?: string;
  processing_private_key?: SecretInput;
  merchant_capabilities: string[];
  supported_networks: string[];
  domains: string[];
  /** The domain-association file's content: a text replaces, null removes, absent keeps. */
  domain_association?: string | null;
}

export interface GooglePayInput {
  enabled?: boolean;
  environment: 'TEST' | 'PRODUCTION';
  allowed_auth_methods: string[];
  supported_networks: string[];
  merchant_identifier: string;
  gateway: string;
  gateway_merchant_id: string;
  private_key?: SecretInput;
  extra_parameters: boolean;
}

/** Each wallet given replaces that wallet (its keys kept when omitted); null removes the wallet. */
export interface WalletsInput {
  apple_pay?: ApplePayInput | null;
  google_pay?: GooglePayInput | null;
}

const keyView = (fingerprint: string | null | undefined): KeyView => (fingerprint ? { set: true, fingerprint } : null);

export function walletsView(w: StoredWallets) {
  const a = w.applePay;
  const g = w.googlePay;
  return {
    apple_pay: a ? {
      enabled: a.enabled,
      merchant_identifier: a.merchantIdentifier,
      country: a.country,
      shop_name: a.shopName,
      certificate: { fingerprint: a.certificate.fingerprint, subject: a.certificate.subject, valid_to: a.certificate.validTo },
      private_key: keyView(a.privateKeyFingerprint),
      processing_private_key: keyView(a.processingKeyFingerprint),
      merchant_capabilities: a.merchantCapabilities,
      supported_networks: a.supportedNetworks,
      domains: a.domains,
      domain_association: a.domainAssociation ? { sha256: a.domainAssociation.sha256, size: Buffer.byteLength(a.domainAssociation.content, 'utf8'), uploaded_at: a.domainAssociation.uploadedAt } : null,
    } : null,
    google_pay: g ? {
      enabled: g.enabled,
      environment: g.environment,
      allowed_auth_methods: g.allowedAuthMethods,
      supported_networks: g.supportedNetworks,
      merchant_identifier: g.merchantIdentifier,
      gateway: g.gateway,
      gateway_merchant_id: g.gatewayMerchantId,
      private_key: keyView(g.privateKeyFingerprint),
      extra_parameters: g.extraParameters,
    } : null,
  };
}

/** Collects the field errors of one request, so the operator sees every wrong key at once. */
class Problems {
  readonly list: FieldError[] = [];
  key(field: string, text: string, types: readonly string[]): ParsedKey | undefined {
    const parsed = parsePrivateKey(text, types);
    if (parsed.ok) return parsed.value;
    this.list.push({ field, message: parsed.message });
    return undefined;
  }
  add(field: string, message: string): void {
    this.list.push({ field, message });
  }
}

/** A secret slot: the request's key replaces it, null empties it, absent keeps it; returns the fingerprint left. */
function applySecret(p: Problems, secrets: SecretFields, slot: string, field: string, given: SecretInput, types: readonly string[], current: string | null): string | null {
  if (given === undefined) return secrets[slot] ? current : null;
  if (given === null) {
    delete secrets[slot];
    return null;
  }
  const key = p.key(field, given, types);
  if (!key) return current;
  secrets[slot] = key.pem;
  return key.fingerprint;
}

/** The domain-association file a request leaves: a text replaces (stamped now), null removes, absent keeps. */
function applyDomainAssociation(current: StoredDomainAssociation | undefined, given: string | null | undefined, now: Date): StoredDomainAssociation | undefined {
  if (given === undefined) return current;
  if (given === null) return undefined;
  return { content: given, sha256: `sha256:${createHash('sha256').update(given, 'utf8').digest('hex')}`, uploadedAt: now.toISOString() };
}

function applyApplePay(p: Problems, secrets: SecretFields, current: StoredApplePay | undefined, input: ApplePayInput, now: Date): StoredApplePay | undefined {
  let certificate = current?.certificate;
  if (input.certificate !== undefined) {
    const parsed = parseCertificate(input.certificate);
    if (parsed.ok) certificate = { pem: parsed.value.pem, fingerprint: parsed.value.fingerprint, subject: parsed.value.subject, validTo: parsed.value.validTo };
    else p.add('apple_pay.certificate', parsed.message);
  } else if (!certificate) p.add('apple_pay.certificate', 'This value should not be blank.');
  const privateKeyFingerprint = applySecret(p, secrets, 'apple_pay_private_key', 'apple_pay.private_key', input.private_key, IDENTITY_KEY_TYPES, current?.privateKeyFingerprint ?? null);
  if (!secrets.apple_pay_private_key && input.private_key === undefined) p.add('apple_pay.private_key', 'This value should not be blank.');
  const processingKeyFingerprint = applySecret(p, secrets, 'apple_pay_processing_private_key', 'apple_pay.processing_private_key', input.processing_private_key, EC, current?.processingKeyFingerprint ?? null);
  if (p.list.length > 0 || !certificate || !privateKeyFingerprint) return undefined;
  const key = parsePrivateKey(secrets.apple_pay_private_key as string);
  if (key.ok && !parseCertificateOrThrow(certificate.pem).checkPrivateKey(key.value.key)) {
    p.add('apple_pay.private_key', 'This value should be the private key of the certificate.');
    return undefined;
  }
  return {
    enabled: input.enabled ?? true,
    merchantIdentifier: input.merchant_identifier,
    country: input.country,
    shopName: input.shop_name,
    certificate,
    privateKeyFingerprint,
    processingKeyFingerprint,
    merchantCapabilities: input.merchant_capabilities,
    supportedNetworks: input.supported_networks,
    domains: input.domains.map((d) => d.toLowerCase()),
    ...optional('domainAssociation', applyDomainAssociation(current?.domainAssociation, input.domain_association, now)),
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

function parseCertificateOrThrow(pem: string) {
  const parsed = parseCertificate(pem);
  if (!parsed.ok) throw new Error('a stored certificate no longer parses');
  return parsed.value.certificate;
}

function applyGooglePay(p: Problems, secrets: SecretFields, current: StoredGooglePay | undefined, input: GooglePayInput): StoredGooglePay {
  return {
    enabled: input.enabled ?? true,
    environment: input.environment,
    allowedAuthMethods: input.allowed_auth_methods,
    supportedNetworks: input.supported_networks,
    merchantIdentifier: input.merchant_identifier,
    gateway: input.gateway,
    gatewayMerchantId: input.gateway_merchant_id,
    privateKeyFingerprint: applySecret(p, secrets, 'google_pay_private_key', 'google_pay.private_key', input.private_key, EC, current?.privateKeyFingerprint ?? null),
    extraParameters: input.extra_parameters,
  };
}

const APPLE_SLOTS = ['apple_pay_private_key', 'apple_pay_processing_private_key'];

/** The wallets a request leaves, with `secrets` (the opened wallet keys) changed in place. */
function applyWallets(current: StoredWallets, input: WalletsInput, secrets: SecretFields, now: Date): StoredWallets {
  const p = new Problems();
  const next: StoredWallets = { ...current };
  if (input.apple_pay === null) {
    delete next.applePay;
    for (const slot of APPLE_SLOTS) delete secrets[slot];
  } else if (input.apple_pay) {
    next.applePay = applyApplePay(p, secrets, current.applePay, input.apple_pay, now);
  }
  if (input.google_pay === null) {
    delete next.googlePay;
    delete secrets.google_pay_private_key;
  } else if (input.google_pay) {
    next.googlePay = applyGooglePay(p, secrets, current.googlePay, input.google_pay);
  }
  if (p.list.length > 0) throw GatewayError.invalid(p.list);
  return next;
}

export async function getWallets(ctx: ServiceContext, merchantId: string) {
  const config = isUuid(merchantId) ? await loadMerchantConfig(ctx.db, ctx.keyring, merchantId) : undefined;
  if (!config) throw new GatewayError('notFound');
  return walletsView(config.wallets as StoredWallets);
}

/** Sets the Wallets tab. With `ifMatch` (the request's If-Match), only while it still has the tag it names (domain/entity-tags.ts). */
export async function putWallets(ctx: ServiceContext, actor: AuditActor, merchantId: string, input: WalletsInput, ifMatch?: string) {
  if (!isUuid(merchantId)) throw new GatewayError('notFound');
  const view = await ctx.db.transaction(async (tx) => {
    const config = await loadMerchantConfig(tx, ctx.keyring, merchantId, true);
    if (!config) throw new GatewayError('notFound');
    const current = config.wallets as StoredWallets;
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, entityTag(walletsView(current)))) throw new GatewayError('configurationChanged');
    const secrets = { ...openWalletSecrets(ctx.keyring, config).expose() };
    const now = ctx.clock.now();
    const next = applyWallets(current, input, secrets, now);
    const sealed = Object.keys(secrets).length > 0 ? sealSecret(ctx.keyring, secrets, walletSecretsOwner(merchantId)) : null;
    await writeMerchantWallets(tx, merchantId, next as Record<string, unknown>, sealed, now);
    const after = walletsView(next);
    await appendAudit(tx, { actor, action: 'merchant.wallets.update', objectType: 'merchant', objectId: merchantId, before: walletsView(current), after }, now);
    return after;
  });
  ctx.merchants.invalidate();
  return view;
}
