/**
 * Every admin-panel setting of a merchant (interface spec "MID and Protocol Mapping settings"): Protocol
 * Mapping's optional fields for callbacks and for status responses, the S2S CARD payer fields marked Required
 * or Optional, Override Link Target, Return additional parameters, the Checkout Payment Method option and the
 * per-connector options. Stored as exactly the MerchantSettings the builders read, so a change is what the
 * next callback, status answer or page shows; secrets (the token-call private key) sealed beside it.
 */
import { entityTag, ifMatchHolds } from '../../domain/entity-tags.ts';
import type { Sql } from '../../store/database.ts';
import type { ServiceContext } from '../context.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { isKnownCurrency } from '../../domain/money.ts';
import { OPTIONAL_FIELD_NAMES, PORTAL_EDITABLE_SETTINGS, REQUIRABLE_PAYER_FIELDS, RETURN_PARAMETERS, type PortalEditableSetting } from '../../domain/protocol-mapping.ts';
import { parsePrivateKey } from '../../domain/pem-keys.ts';
import type { ConnectorOptions, LinkTarget, MerchantSettings } from '../../domain/model/merchant.ts';
import { loadMerchantConfig, openOptionSecrets, writeMerchantSettings } from '../../store/merchant-config-repo.ts';
import { optionSecretsOwner } from '../../store/secret-rotation.ts';
import { sealSecret, type SecretFields } from '../../store/sealed-secrets.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import type { AuditScope } from './merchants.ts';
import { auditDiff } from './audit-diff.ts';
import { isUuid } from '../../domain/ids.ts';
import { isCidr } from '../../domain/risk/ip.ts';

type Requirement = 'required' | 'optional';

export interface ConnectorOptionsView {
  mobile_money: { fee_bearer: 'merchant' | 'payer' } | null;
  voucher_partner: { partner_ids: Record<string, string>; language: string; domain: string | null } | null;
  mail_payout: { account_uuid: string; fee_calculation_method: 'account_level' | 'transaction_level' } | null;
  token_call: { private_key: { set: true; fingerprint: string } } | null;
}

export interface SettingsView {
  callback_fields: string[];
  status_fields: string[];
  return_params: string[];
  checkout_payment_method: boolean;
  payer_fields: Record<string, Requirement>;
  override_link_target: LinkTarget | null;
  connector_options: ConnectorOptionsView;
  /** Hosted Checkout after a decline: tries per session, or false for the platform's behaviour (straight to the merchant). */
  payer_retries: { max_attempts: number } | false;
  /** Issue 25, item 5: where the merchant's servers call from (empty: anywhere). */
  allowed_source_addresses: string[];
  /** The Portcullis-Signature header: `optional` (checked when sent) or `required`. */
  request_signature: 'optional' | 'required';
  /** Issue 31 item 14: e-mail the receipt of a paid Hosted Checkout payment to the payer. */
  receipt_email: boolean;
  /** Issue 30 item 3: which of callback_fields, status_fields, return_params the merchant's users may change in the portal. */
  portal_editable_settings: PortalEditableSetting[];
}

export interface ConnectorOptionsPatch {
  mobile_money?: { fee_bearer: 'merchant' | 'payer' } | null;
  voucher_partner?: { partner_ids: Record<string, string>; language: string; domain?: string | null } | null;
  mail_payout?: { account_uuid: string; fee_calculation_method?: 'account_level' | 'transaction_level' } | null;
  token_call?: { private_key: string } | null;
}

/** Each key given replaces that setting; payer_fields and connector_options replace only the entries given. */
export interface SettingsPatch {
  callback_fields?: string[];
  status_fields?: string[];
  return_params?: string[];
  checkout_payment_method?: boolean;
  payer_fields?: Record<string, Requirement>;
  override_link_target?: LinkTarget | null;
  connector_options?: ConnectorOptionsPatch;
  payer_retries?: { max_attempts: number } | false | null;
  allowed_source_addresses?: string[];
  request_signature?: 'optional' | 'required';
  receipt_email?: boolean;
  portal_editable_settings?: PortalEditableSetting[];
}

function connectorOptionsView(o: ConnectorOptions = {}): ConnectorOptionsView {
  return {
    mobile_money: o.mobileMoney ? { fee_bearer: o.mobileMoney.feeBearer } : null,
    voucher_partner: o.voucherPartner ? { partner_ids: o.voucherPartner.partnerIds, language: o.voucherPartner.language, domain: o.voucherPartner.domain ?? null } : null,
    mail_payout: o.mailPayout ? { account_uuid: o.mailPayout.accountUuid, fee_calculation_method: o.mailPayout.feeCalculationMethod } : null,
    token_call: o.tokenCall ? { private_key: { set: true, fingerprint: o.tokenCall.privateKeyFingerprint } } : null,
  };
}

export function settingsView(s: MerchantSettings): SettingsView {
  const required = new Set(s.requiredPayerFields ?? []);
  return {
    callback_fields: s.callbackFields ?? [],
    status_fields: s.statusFields ?? [],
    return_params: s.returnParams ?? [],
    checkout_payment_method: s.checkoutPaymentMethod ?? false,
    payer_fields: Object.fromEntries(REQUIRABLE_PAYER_FIELDS.map((f) => [f, required.has(f) ? 'required' : 'optional'])),
    override_link_target: s.overrideLinkTarget ?? null,
    connector_options: connectorOptionsView(s.connectorOptions),
    payer_retries: s.payerRetries === false ? false : { max_attempts: s.payerRetries?.maxAttempts ?? DEFAULT_PAYER_TRIES },
    allowed_source_addresses: s.allowedSourceAddresses ?? [],
    request_signature: s.requestSignature ?? 'optional',
    receipt_email: s.receiptEmail ?? false,
    portal_editable_settings: PORTAL_EDITABLE_SETTINGS.filter((name) => s.portalEditableSettings?.includes(name)),
  };
}

/** Tries a payer has on the hosted page when the merchant set nothing (the payer pages' own default). */
const DEFAULT_PAYER_TRIES = 3;

/** Sets `key` of `target` to `value`, or removes it when the value is null (the setting back to its default). */
function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | null | undefined): void {
  if (value === undefined) return;
  if (value === null) delete target[key];
  else target[key] = value;
}

function patchConnectorOptions(current: ConnectorOptions, patch: ConnectorOptionsPatch, secrets: SecretFields): ConnectorOptions {
  const next: ConnectorOptions = { ...current };
  if (patch.mobile_money !== undefined) assign(next, 'mobileMoney', patch.mobile_money && { feeBearer: patch.mobile_money.fee_bearer });
  if (patch.voucher_partner !== undefined) {
    const v = patch.voucher_partner;
    const unknown = v && Object.keys(v.partner_ids).find((code) => !isKnownCurrency(code));
    if (unknown) throw GatewayError.field(`connector_options.voucher_partner.partner_ids.${unknown}`, MESSAGES.notCurrency);
    assign(next, 'voucherPartner', v && { partnerIds: v.partner_ids, language: v.language, ...(v.domain ? { domain: v.domain } : {}) });
  }
  if (patch.mail_payout !== undefined) {
    const m = patch.mail_payout;
    assign(next, 'mailPayout', m && { accountUuid: m.account_uuid.toLowerCase(), feeCalculationMethod: m.fee_calculation_method ?? 'account_level' });
  }
  if (patch.token_call !== undefined) {
    if (patch.token_call === null) {
      delete next.tokenCall;
      delete secrets.token_call_private_key;
    } else {
      const parsed = parsePrivateKey(patch.token_call.private_key);
      if (!parsed.ok) throw GatewayError.field('connector_options.token_call.private_key', parsed.message);
      next.tokenCall = { privateKeyFingerprint: parsed.value.fingerprint };
      secrets.token_call_private_key = parsed.value.pem;
    }
  }
  return next;
}

/** The settings a patch leaves; `secrets` (opened option secrets) is changed in place. */
export function patchedSettings(current: MerchantSettings, patch: SettingsPatch, secrets: SecretFields): MerchantSettings {
  const next: MerchantSettings = { ...current };
  // The channels' schemas check the names too; checked here as well, since the portal reaches this service as well as the admin API.
  for (const key of ['callback_fields', 'status_fields', 'return_params'] as const) {
    const allowed: readonly string[] = key === 'return_params' ? RETURN_PARAMETERS : OPTIONAL_FIELD_NAMES;
    const bad = patch[key]?.findIndex((name) => !allowed.includes(name)) ?? -1;
    if (bad >= 0) throw GatewayError.field(`${key}[${bad}]`, MESSAGES.notChoice);
  }
  assign(next, 'callbackFields', patch.callback_fields);
  assign(next, 'statusFields', patch.status_fields);
  assign(next, 'returnParams', patch.return_params);
  assign(next, 'checkoutPaymentMethod', patch.checkout_payment_method);
  assign(next, 'overrideLinkTarget', patch.override_link_target);
  if (patch.payer_retries !== undefined) {
    const r = patch.payer_retries;
    assign(next, 'payerRetries', r === null || r === false ? r : { maxAttempts: r.max_attempts });
  }
  if (patch.allowed_source_addresses !== undefined) {
    const list = patch.allowed_source_addresses;
    const bad = list.findIndex((entry) => !isCidr(entry));
    if (bad >= 0) throw GatewayError.field(`allowed_source_addresses[${bad}]`, 'This value is not a valid IP address or CIDR block.');
    assign(next, 'allowedSourceAddresses', list.length > 0 ? list : null);
  }
  // `optional` is the default: stored as nothing.
  if (patch.request_signature !== undefined) assign(next, 'requestSignature', patch.request_signature === 'required' ? 'required' : null);
  // Off is the default: stored as nothing.
  if (patch.receipt_email !== undefined) assign(next, 'receiptEmail', patch.receipt_email ? true : null);
  if (patch.portal_editable_settings !== undefined) {
    const list = patch.portal_editable_settings;
    const bad = list.findIndex((name) => !(PORTAL_EDITABLE_SETTINGS as readonly string[]).includes(name));
    if (bad >= 0) throw GatewayError.field(`portal_editable_settings[${bad}]`, MESSAGES.notChoice);
    // None is the default: stored as nothing; kept in the table's order.
    const chosen = PORTAL_EDITABLE_SETTINGS.filter((name) => list.includes(name));
    assign(next, 'portalEditableSettings', chosen.length > 0 ? chosen : null);
  }
  if (patch.payer_fields) {
    const required = new Set(current.requiredPayerFields ?? []);
    for (const [f, requirement] of Object.entries(patch.payer_fields)) {
      if (requirement === 'required') required.add(f);
      else required.delete(f);
    }
    next.requiredPayerFields = REQUIRABLE_PAYER_FIELDS.filter((f) => required.has(f));
  }
  if (patch.connector_options) next.connectorOptions = patchConnectorOptions(current.connectorOptions ?? {}, patch.connector_options, secrets);
  return next;
}

export async function getMerchantSettings(ctx: ServiceContext, merchantId: string): Promise<SettingsView> {
  const config = isUuid(merchantId) ? await loadMerchantConfig(ctx.db, ctx.keyring, merchantId) : undefined;
  if (!config) throw new GatewayError('notFound');
  return settingsView(config.merchant.settings);
}

/**
 * A `check` for changeMerchantSettings that refuses the patch unless the settings are still those whose view's tag
 * the request's If-Match names (domain/entity-tags.ts): an operator's change over settings someone saved since.
 */
export const savedOver = (ifMatch: string | undefined): ((current: MerchantSettings) => void) | undefined =>
  ifMatch === undefined ? undefined : (current) => {
    if (!ifMatchHolds(ifMatch, entityTag(settingsView(current)))) throw new GatewayError('configurationChanged');
  };

/**
 * `check`, when given, sees the settings as they are (the merchant's row locked) before the patch applies and may
 * refuse it (the portal: only the settings the operator lets the merchant change; the admin API: savedOver).
 */
export async function changeMerchantSettings(
  ctx: ServiceContext, actor: AuditActor, merchantId: string, patch: SettingsPatch, scope: AuditScope = {}, check?: (current: MerchantSettings) => void,
): Promise<SettingsView> {
  if (!isUuid(merchantId)) throw new GatewayError('notFound');
  const view = await ctx.db.transaction((tx) => changeMerchantSettingsIn(tx, ctx, actor, merchantId, patch, scope, check));
  ctx.merchants.invalidate();
  return view;
}

/** changeMerchantSettings inside the caller's transaction (a change made with others, all or nothing); the caller drops the cached merchants. */
export async function changeMerchantSettingsIn(
  tx: Sql, ctx: Pick<ServiceContext, 'keyring' | 'clock'>, actor: AuditActor, merchantId: string, patch: SettingsPatch, scope: AuditScope = {}, check?: (current: MerchantSettings) => void,
): Promise<SettingsView> {
  const config = await loadMerchantConfig(tx, ctx.keyring, merchantId, true);
  if (!config) throw new GatewayError('notFound');
  check?.(config.merchant.settings);
  const secrets = { ...openOptionSecrets(ctx.keyring, config).expose() };
  const settings = patchedSettings(config.merchant.settings, patch, secrets);
  const sealed = Object.keys(secrets).length > 0 ? sealSecret(ctx.keyring, secrets, optionSecretsOwner(merchantId)) : null;
  const now = ctx.clock.now();
  await writeMerchantSettings(tx, merchantId, settings, sealed, now);
  const after = settingsView(settings);
  // Views carry fingerprints, never the private key; only the settings that changed are recorded.
  const diff = auditDiff(settingsView(config.merchant.settings) as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>);
  if (diff.changed) await appendAudit(tx, { actor, action: 'merchant.settings.update', objectType: 'merchant', objectId: merchantId, before: diff.before, after: diff.after, ...scope }, now);
  return after;
}
