/**
 * The Wallets tab (issue 11): `GET|PUT /admin/v1/merchants/{id}/wallets`, read with merchants.read and
 * changed with merchants.write. Keys are write-only: PEM in, fingerprint out.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import {
  APPLE_PAY_CAPABILITIES, APPLE_PAY_NETWORKS, GOOGLE_PAY_AUTH_METHODS, GOOGLE_PAY_NETWORKS, getWallets, putWallets, type WalletsInput,
} from '../../services/admin/wallets.ts';
import { registerMerchantTab } from './merchant-tab.ts';

const oneOf = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Nullable = (t: TSchema) => Type.Union([t, Type.Null()]);
const SetOf = (values: readonly string[], description: string) => Type.Array(oneOf(values), { minItems: 1, uniqueItems: true, maxItems: values.length, description });
const Pem = (description: string) => Type.String({ minLength: 40, maxLength: 16_384, description });
const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });
const Hostname = Type.String({ pattern: '^(?=.{1,253}$)([A-Za-z0-9-]{1,63}\\.)+[A-Za-z]{2,63}$' });
const KeyView = Nullable(Type.Object({ set: Type.Literal(true), fingerprint: Type.String({ description: 'sha256 of the public key' }) }));

const ApplePayBody = Type.Object({
  enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  merchant_identifier: Text(255, 'Apple Pay Merchant Identifier (merchant.com.example).'),
  country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2.' }),
  shop_name: Text(64),
  certificate: Type.Optional(Pem('Merchant identity certificate, PEM. Required the first time; omitted: the stored one stays.')),
  private_key: Type.Optional(Pem('The certificate\'s private key (EC or RSA), PEM. Required the first time; omitted: the stored one stays.')),
  processing_private_key: Type.Optional(Nullable(Pem('Payment processing key (EC P-256), PEM or its base64 body on one line; needed only to decrypt tokens. null removes it.'))),
  merchant_capabilities: SetOf(APPLE_PAY_CAPABILITIES, 'Merchant capabilities.'),
  supported_networks: SetOf(APPLE_PAY_NETWORKS, 'Supported networks.'),
  domains: Type.Array(Hostname, { maxItems: 100, uniqueItems: true, description: 'Domains registered and verified with Apple.' }),
  domain_association: Type.Optional(Nullable(Type.String({
    minLength: 1, maxLength: 65_536,
    description: "The domain-association file Apple gives for the gateway's page domain, its content as text: served as-is at "
      + '/.well-known/apple-developer-merchantid-domain-association (the latest uploaded of all merchants). null removes it; omitted: kept.',
  }))),
}, { additionalProperties: false });

const GooglePayBody = Type.Object({
  enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  environment: oneOf(['TEST', 'PRODUCTION']),
  allowed_auth_methods: SetOf(GOOGLE_PAY_AUTH_METHODS, 'PAN_ONLY (the acquirer bears 3DS) and/or CRYPTOGRAM_3DS.'),
  supported_networks: SetOf(GOOGLE_PAY_NETWORKS, 'Supported networks.'),
  merchant_identifier: Text(255, 'Google Pay merchant id.'),
  gateway: Text(64, 'The gateway name the token is issued for.'),
  gateway_merchant_id: Text(255),
  private_key: Type.Optional(Nullable(Pem('EC private key, PEM or its base64 body; needed only when the platform decrypts tokens. null removes it; omitted: kept.'))),
  extra_parameters: Type.Boolean({ description: 'Extra parameters in the token.' }),
}, { additionalProperties: false });

const example = {
  apple_pay: {
    merchant_identifier: 'merchant.com.example.shop', country: 'GB', shop_name: 'Example Shop',
    certificate: '-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----', private_key: '-----BEGIN PRIVATE KEY-----\nMIGH...\n-----END PRIVATE KEY-----',
    merchant_capabilities: ['supports3DS'], supported_networks: ['visa', 'masterCard'], domains: ['shop.example.com'],
  },
  google_pay: {
    environment: 'TEST', allowed_auth_methods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'], supported_networks: ['VISA', 'MASTERCARD'],
    merchant_identifier: 'BCR2DN4T000000', gateway: 'portcullis', gateway_merchant_id: 'shop-1', extra_parameters: false,
  },
};

const WalletsBody = Type.Object({
  apple_pay: Type.Optional(Nullable(ApplePayBody)),
  google_pay: Type.Optional(Nullable(GooglePayBody)),
}, { additionalProperties: false, minProperties: 1, description: 'Each wallet given replaces that wallet (its keys kept when omitted); null removes the wallet.', examples: [example] });

const WalletsView = Type.Object({
  apple_pay: Nullable(Type.Object({
    enabled: Type.Boolean(),
    merchant_identifier: Type.String(),
    country: Type.String(),
    shop_name: Type.String(),
    certificate: Type.Object({ fingerprint: Type.String(), subject: Type.String(), valid_to: Type.String() }),
    private_key: KeyView,
    processing_private_key: KeyView,
    merchant_capabilities: Type.Array(Type.String()),
    supported_networks: Type.Array(Type.String()),
    domains: Type.Array(Type.String()),
    domain_association: Nullable(Type.Object({ sha256: Type.String(), size: Type.Integer({ description: 'bytes' }), uploaded_at: Type.String({ format: 'date-time' }) })),
  })),
  google_pay: Nullable(Type.Object({
    enabled: Type.Boolean(),
    environment: Type.String(),
    allowed_auth_methods: Type.Array(Type.String()),
    supported_networks: Type.Array(Type.String()),
    merchant_identifier: Type.String(),
    gateway: Type.String(),
    gateway_merchant_id: Type.String(),
    private_key: KeyView,
    extra_parameters: Type.Boolean(),
  })),
}, {
  examples: [{
    apple_pay: { ...example.apple_pay, enabled: true, certificate: { fingerprint: 'sha256:3f5a…', subject: 'CN=merchant.com.example.shop', valid_to: '2027-01-01T00:00:00.000Z' }, private_key: { set: true, fingerprint: 'sha256:9b1c…' }, processing_private_key: null, domain_association: { sha256: 'sha256:5e0f…', size: 9843, uploaded_at: '2026-11-28T19:40:00.000Z' } },
    google_pay: { ...example.google_pay, enabled: true, private_key: null },
  }],
});

export function registerAdminWalletRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  registerMerchantTab<WalletsInput>(app, 'wallets', WalletsView, {
    conditional: true,
    read: { permission: 'merchants.read', summary: 'A merchant\'s Wallets tab (keys shown as fingerprints; with its ETag)', handle: (id) => getWallets(ctx, id) },
    put: { permission: 'merchants.write', summary: 'Set Apple Pay and Google Pay: certificates and keys validated, keys sealed. With If-Match, only over the tab read', body: WalletsBody, handle: (actor, id, input, ifMatch) => putWallets(ctx, actor, id, input, ifMatch) },
  });
}
