/**
 * A merchant's admin-panel settings (issue 11): `GET|PATCH /admin/v1/merchants/{id}/settings`, read with
 * merchants.read and changed with merchants.write. The field names are Protocol Mapping's table
 * (domain/protocol-mapping.ts); the private key of the token-call family is write-only (a fingerprint shows).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { changeMerchantSettings, getMerchantSettings, savedOver, type SettingsPatch } from '../../services/admin/merchant-settings.ts';
import {
  FEE_CALCULATION_METHODS, LINK_TARGETS, MOBILE_MONEY_FEE_BEARERS, OPTIONAL_FIELDS, OPTIONAL_FIELD_NAMES, PORTAL_EDITABLE_SETTINGS, REQUIRABLE_PAYER_FIELDS, RETURN_PARAMETERS,
} from '../../domain/protocol-mapping.ts';
import { registerMerchantTab } from './merchant-tab.ts';

const oneOf = (values: readonly string[], description?: string) => Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {});
const Nullable = (t: TSchema) => Type.Union([t, Type.Null()]);

const FIELD_DOC = OPTIONAL_FIELDS.map((f) => `${f.name} (${f.wire.join(', ')})`).join('; ');
export const FieldList = (where: string) => Type.Array(oneOf(OPTIONAL_FIELD_NAMES), { uniqueItems: true, maxItems: OPTIONAL_FIELD_NAMES.length, description: `Optional fields added to ${where}. Names and what each adds: ${FIELD_DOC}.` });
export const ReturnParams = Type.Array(oneOf(RETURN_PARAMETERS), { uniqueItems: true, description: 'Appended to success_url and cancel_url (3DS or not) besides payment_id, trans_id, order_id and hash.' });
const Requirement = oneOf(['required', 'optional']);
const LinkTarget = oneOf(LINK_TARGETS, 'Replaces the merchant\'s url_target (Checkout) or term_url_target (S2S CARD) when set.');

const PayerFieldsPatch = Type.Object(
  Object.fromEntries(REQUIRABLE_PAYER_FIELDS.map((f) => [f, Type.Optional(Requirement)])),
  { additionalProperties: false, description: 'S2S CARD payer fields marked Required or Optional in Protocol Mapping (SALE always requires the payer\'s name, e-mail, phone and IP).' },
);
const PayerFieldsView = Type.Object(Object.fromEntries(REQUIRABLE_PAYER_FIELDS.map((f) => [f, Requirement])));

const MobileMoney = Type.Object({ fee_bearer: oneOf(MOBILE_MONEY_FEE_BEARERS, 'Who bears the mobile-money fee.') }, { additionalProperties: false });
const VoucherPartner = Type.Object({
  partner_ids: Type.Record(Type.RegExp(/^[A-Z]{3}$/), Type.String({ minLength: 1, maxLength: 64 }), { minProperties: 1, maxProperties: 200, description: 'PartnerId per currency (ISO 4217).' }),
  language: Type.String({ pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$', maxLength: 35, description: 'RFC 3066 language identifier.' }),
  domain: Type.Optional(Nullable(Type.String({ pattern: '^(?=.{1,253}$)([A-Za-z0-9-]{1,63}\\.)+[A-Za-z]{2,63}$', description: 'Domain of the web application.' }))),
}, { additionalProperties: false });
const MailPayout = Type.Object({
  account_uuid: Type.String({ pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$' }),
  fee_calculation_method: Type.Optional(oneOf(FEE_CALCULATION_METHODS, 'Default account_level.')),
}, { additionalProperties: false });
const TokenCallPatch = Type.Object({
  private_key: Type.String({ minLength: 40, maxLength: 16_384, description: 'PEM (or its base64 body on one line). Sealed at rest; only its fingerprint is shown.' }),
}, { additionalProperties: false });

const ConnectorOptionsPatch = Type.Object({
  mobile_money: Type.Optional(Nullable(MobileMoney)),
  voucher_partner: Type.Optional(Nullable(VoucherPartner)),
  mail_payout: Type.Optional(Nullable(MailPayout)),
  token_call: Type.Optional(Nullable(TokenCallPatch)),
}, { additionalProperties: false, description: 'Each option given replaces that option; null removes it.' });

const example = {
  callback_fields: ['payer_email', '3ds', 'rrn'],
  status_fields: ['card', 'payment_method'],
  return_params: ['payment_method'],
  checkout_payment_method: true,
  payer_fields: { payer_address: 'required', payer_zip: 'required' },
  override_link_target: '_top',
  payer_retries: { max_attempts: 3 },
  allowed_source_addresses: ['203.0.113.0/24', '2001:db8::10'],
  request_signature: 'required',
  receipt_email: true,
  portal_editable_settings: ['callback_fields'],
  connector_options: { mobile_money: { fee_bearer: 'payer' }, mail_payout: { account_uuid: '2f1c7a4e-5b7d-4c1e-9a8b-3d2e1f0a9b8c', fee_calculation_method: 'transaction_level' } },
};

const PayerRetries = Type.Union([
  Type.Object({ max_attempts: Type.Integer({ minimum: 1, maximum: 20 }) }, { additionalProperties: false }),
  Type.Literal(false),
], { description: 'Hosted Checkout after a declined attempt: the payer stays and tries again, up to max_attempts per session (default 3); false keeps the platform\'s behaviour (straight to the merchant\'s error_url). null in a change: back to the default.' });

const AllowedSourceAddresses = Type.Array(Type.String({ minLength: 1, maxLength: 49 }), {
  maxItems: 100, uniqueItems: true,
  description: 'Issue 25, item 5: IP addresses or CIDR blocks (203.0.113.0/24, 2001:db8::/32) the merchant\'s servers call the Checkout API, S2S CARD and S2S APM from; '
    + 'a request from any other client address (as TRUST_PROXY lets the gateway see it) is refused with 403 in the channel\'s error body. Empty: any address (the default).',
});
const RequestSignature = oneOf(['optional', 'required'], 'The Portcullis-Signature header (docs/merchants/request-signatures.md): optional (the default) checks a header that is sent; '
  + 'required refuses a Checkout API, S2S CARD or S2S APM request without a valid one. Only required stops a captured request from being replayed.');

const ReceiptEmail = Type.Boolean({ description: 'Issue 31 item 14: when a payment is paid (a sale, or the capture of an authorization; Hosted Checkout, S2S or an alternative method, '
  + 'whether or not the payer sees a receipt page), its receipt (shop, amount, method, masked card, date, order number and short payment reference) is e-mailed '
  + 'to the payer\'s address, once: in the receipt page\'s language when the payer sees it, else the session\'s (or English). Payments without a payer e-mail get none. Off by default. '
  + 'Sent through SMTP_URL, or the sandbox outbox (/sandbox/outbox) in development.' });

const PortalEditableSettings = Type.Array(oneOf(PORTAL_EDITABLE_SETTINGS), {
  uniqueItems: true, maxItems: PORTAL_EDITABLE_SETTINGS.length,
  description: 'Issue 30 item 3: the settings the merchant\'s users (the roles that change developer settings: owner, developer) may change themselves in the portal '
    + '(GET|PATCH /portal/v1/developers), with the same validation and in the audit log with the user. Empty: none (the default).',
});

const SettingsPatchBody = Type.Object({
  callback_fields: Type.Optional(FieldList('callbacks ("Add Data to Callback")')),
  status_fields: Type.Optional(FieldList('status responses ("Add Data to Get status response")')),
  return_params: Type.Optional(ReturnParams),
  checkout_payment_method: Type.Optional(Type.Boolean({ description: 'Returns checkout_payment_method in callbacks, status lookups and the return query string.' })),
  payer_fields: Type.Optional(PayerFieldsPatch),
  override_link_target: Type.Optional(Nullable(LinkTarget)),
  connector_options: Type.Optional(ConnectorOptionsPatch),
  payer_retries: Type.Optional(Nullable(PayerRetries)),
  allowed_source_addresses: Type.Optional(AllowedSourceAddresses),
  request_signature: Type.Optional(RequestSignature),
  receipt_email: Type.Optional(ReceiptEmail),
  portal_editable_settings: Type.Optional(PortalEditableSettings),
}, { additionalProperties: false, minProperties: 1, examples: [example] });

const SettingsView = Type.Object({
  callback_fields: Type.Array(Type.String()),
  status_fields: Type.Array(Type.String()),
  return_params: Type.Array(Type.String()),
  checkout_payment_method: Type.Boolean(),
  payer_fields: PayerFieldsView,
  override_link_target: Nullable(LinkTarget),
  payer_retries: PayerRetries,
  allowed_source_addresses: AllowedSourceAddresses,
  request_signature: RequestSignature,
  receipt_email: ReceiptEmail,
  portal_editable_settings: PortalEditableSettings,
  connector_options: Type.Object({
    mobile_money: Nullable(MobileMoney),
    voucher_partner: Nullable(Type.Object({ partner_ids: Type.Record(Type.String(), Type.String()), language: Type.String(), domain: Nullable(Type.String()) })),
    mail_payout: Nullable(Type.Object({ account_uuid: Type.String(), fee_calculation_method: oneOf(FEE_CALCULATION_METHODS) })),
    token_call: Nullable(Type.Object({ private_key: Type.Object({ set: Type.Literal(true), fingerprint: Type.String({ description: 'sha256 of the public key' }) }) })),
  }),
}, { examples: [{ ...example, payer_fields: Object.fromEntries(REQUIRABLE_PAYER_FIELDS.map((f) => [f, ['payer_address', 'payer_zip'].includes(f) ? 'required' : 'optional'])), connector_options: { ...example.connector_options, voucher_partner: null, token_call: null } }] });

export function registerAdminSettingsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  registerMerchantTab<SettingsPatch>(app, 'settings', SettingsView, {
    conditional: true,
    read: { permission: 'merchants.read', summary: 'A merchant\'s admin-panel settings (Protocol Mapping, links, return parameters, connector options; with their ETag)', handle: (id) => getMerchantSettings(ctx, id) },
    patch: { permission: 'merchants.write', summary: 'Change a merchant\'s settings; the next request on every node sees them. With If-Match, only over the settings read', body: SettingsPatchBody, handle: (actor, id, patch, ifMatch) => changeMerchantSettings(ctx, actor, id, patch, {}, savedOver(ifMatch)) },
  });
}
