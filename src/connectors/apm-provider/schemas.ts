/**
 * The `apm-provider` MID's settings and credentials (admin API), and the rules no schema says: what the chosen
 * kind needs. Credentials are sealed by the admin service like every connector's.
 */
import { Type } from '@sinclair/typebox';
import { PROVIDER_KIND_NAMES, providerKind } from '../../domain/methods/provider-kinds.ts';
import { parsePrivateKey } from '../../domain/pem-keys.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { MESSAGES, type FieldError } from '../../domain/errors.ts';
import { APM_PROVIDER } from './provider-apm.ts';

export const ApmProviderSettings = Type.Object({
  kind: Type.Union(PROVIDER_KIND_NAMES.map((k) => Type.Literal(k)), { description: 'The provider kind (docs/merchants/methods.md, Provider kinds).' }),
  base_url: Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 500, description: "The provider's API address." }),
  methods: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100, description: 'Catalog method keys served (default: the kind\'s own).' })),
  partner_id: Type.Optional(Type.String({ maxLength: 100 })),
  partner_ids: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.String({ maxLength: 100 }), { description: 'Voucher partner: PartnerId per currency.' })),
  language: Type.Optional(Type.String({ maxLength: 35, description: 'Voucher partner: RFC 3066 language.' })),
  domain: Type.Optional(Type.String({ maxLength: 255, description: 'Voucher partner: domain of the web application.' })),
  fee_bearer: Type.Optional(Type.Boolean({ description: 'Mobile money: true, the merchant bears the fee.' })),
  crypto_currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,6}$', description: 'Fiat-to-crypto: the coin the payer sends.' })),
  rates: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.String({ pattern: '^[0-9]{1,18}(\\.[0-9]{1,18})?$' }), { description: 'Fiat-to-crypto: coin units one unit of each fiat currency buys.' })),
  branch_identifier: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
  source_account_number: Type.Optional(Type.String({ maxLength: 64 })),
  type_document: Type.Optional(Type.Union([Type.Literal('CPF'), Type.Literal('CNPJ')])),
  debtor_document: Type.Optional(Type.String({ pattern: '^([0-9]{11}|[0-9]{14})$' })),
  debtor_name: Type.Optional(Type.String({ maxLength: 25 })),
}, { additionalProperties: false });

export const ApmProviderCredentials = Type.Object({
  api_key: Type.String({ minLength: 1, maxLength: 200 }),
  api_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  private_key: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, description: 'PEM (or one line between the markers).' })),
}, { additionalProperties: false });

/** What the kind needs beyond the schemas: its settings, its credentials, a private key that parses. */
export function apmProviderErrors(settings: Readonly<Record<string, unknown>>, credentials: Readonly<Record<string, string>> | null): FieldError[] {
  const kind = providerKind(settings.kind);
  if (!kind) return [];
  const errors: FieldError[] = kind.settings.filter((s) => settings[s] === undefined).map((s) => ({ field: `settings.${s}`, message: MESSAGES.blank }));
  const methods = Array.isArray(settings.methods) ? (settings.methods as unknown[]) : [];
  if (kind.name === 'header-key' && methods.length === 0) errors.push({ field: 'settings.methods', message: MESSAGES.blank });
  // Only alternative payins of the catalog: a card method or a payout is never carried by a provider kind.
  const payin = (m: unknown) => {
    const found = typeof m === 'string' ? findMethod(m) : undefined;
    return !!found && found.experience !== 'card_form' && found.operations.includes('purchase');
  };
  if (!methods.every(payin)) errors.push({ field: 'settings.methods', message: MESSAGES.notChoice });
  if (credentials) {
    for (const c of kind.credentials) if (!credentials[c]) errors.push({ field: `credentials.${c}`, message: MESSAGES.blank });
    // RSA or EC: the keys a SHA-256 signature (the token call, the Signature field) is made with.
    const parsed = credentials.private_key ? parsePrivateKey(credentials.private_key, ['rsa', 'ec']) : undefined;
    if (parsed && !parsed.ok) errors.push({ field: 'credentials.private_key', message: parsed.message });
  }
  return errors;
}

/** What the admin API needs of the connector: its name and schemas (it is no card connector, so no card MID routes to it). */
export const APM_PROVIDER_SPEC = { name: APM_PROVIDER, settingsSchema: ApmProviderSettings, credentialsSchema: ApmProviderCredentials, check: apmProviderErrors, endpoints: { settings: ['base_url'] } };
