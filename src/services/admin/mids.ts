/**
 * MIDs for operators (issue 11): create, change, enable or disable (never delete) and reorder a merchant's
 * MIDs. Credentials are sealed with the vault keyring before they reach the store and leave only masked; each
 * change is audited in its own transaction and invalidates the merchant cache at commit, so routing follows
 * at the next request on every node (store/directory-watch.ts).
 */
import { entityTag, ifMatchHolds } from '../../domain/entity-tags.ts';
import type { TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../context.ts';
import { GatewayError, MESSAGES, type FieldError } from '../../domain/errors.ts';
import { formatAmount, isKnownCurrency } from '../../domain/money.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { scaledDecimal } from '../../domain/routing/eligibility.ts';
import { utcDay, validateCaps } from '../../domain/routing/caps.ts';
import { dailyVolumeOf } from '../../store/volume-caps-repo.ts';
import { compile, collectErrors } from '../../domain/schema-errors.ts';
import { findMerchantById, insertMid, listMids, midCredentialsOwner, openMidCredentials } from '../../store/merchants-repo.ts';
import { MID_CHANGEABLE, MID_FIELDS, midDefaults, midFieldsOf, type Mid, type MidChangeable, type MidField, type MidFields } from '../../domain/model/mid.ts';
import { snakeKeys, snakeName, type SnakeKeys } from '../../domain/model/snake-case.ts';
import { findMerchantMid, lockMerchantMids, setMidPriority, updateMid, type MidChanges } from '../../store/mid-admin-repo.ts';
import { maskSecretFields, sealSecret, type SecretFields } from '../../store/sealed-secrets.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { VaultError } from '../../store/card-vault.ts';
import { APM_PROVIDER_SPEC } from '../../connectors/apm-provider/schemas.ts';
import type { CardConnector } from '../../connectors/types.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import { Secret } from '../../domain/secret.ts';
import { endpointErrors, NO_EXCEPTIONS } from '../../domain/connector-targets.ts';

/** Connectors a MID may name besides the card connectors: the APM provider kinds (issue 17). */
const APM_CONNECTOR_SPECS: ReadonlyMap<string, typeof APM_PROVIDER_SPEC> = new Map([[APM_PROVIDER_SPEC.name, APM_PROVIDER_SPEC]]);
import { METHOD_LIST } from '../../domain/methods/catalog.ts';
import { fitsMidSetting, midSettingRules } from '../../domain/methods/supplied.ts';

/** MID settings the method catalog reads (account_uuid, fee_calculation_method, ...), with their allowed values. */
const METHOD_SETTINGS = midSettingRules(METHOD_LIST);

/** A MID setting a payment method reads must be a value that method allows (one of its values, its shape). */
function methodSettingErrors(settings: Record<string, unknown>): FieldError[] {
  return Object.entries(settings).flatMap(([key, value]) => {
    const rule = METHOD_SETTINGS.get(key);
    if (fitsMidSetting(rule, value)) return [];
    return [{ field: `settings.${key}`, message: rule?.values ? MESSAGES.notChoice : MESSAGES.notValid }];
  });
}

/** A MID as the admin API shows it: its fields in snake_case, credentials masked, amounts as decimal strings. */
export type MidView = { id: string; merchant_id: string } & SnakeKeys<MidFields> & {
  /** Each credential field masked (last four characters of long values); null: none set, or not readable. */
  credentials: SecretFields | null;
  /** The vault key that sealed them (rotation is done when none names an old key); null: none set. */
  credentials_key_id: string | null;
  /** What the MID has carried today (UTC), as its daily caps count it; on reads only, never in the audit log. */
  today?: DailyUsage;
};

/** A MID's running counts of the UTC day, per currency it carried any payment in. */
export interface DailyUsage {
  day: string;
  volume: Record<string, { count: number; amount: string }>;
}

/** The writable fields of a MID on the wire; on PATCH every one is optional (the connector is set at creation only). */
export type MidInput = Partial<SnakeKeys<MidChangeable>> & {
  /** Fields given replace the stored ones, a null field is removed; null as a whole removes every credential. */
  credentials?: Record<string, string | null> | null;
};

export function midView(ctx: Pick<ServiceContext, 'keyring'>, mid: Mid): MidView {
  return {
    id: mid.id,
    merchant_id: mid.merchantId,
    ...snakeKeys(midFieldsOf(mid)),
    credentials: maskedCredentials(ctx, mid),
    credentials_key_id: mid.sealedCredentials?.keyId ?? null,
  };
}

/** The fields the input gives (absent ones left out), by their domain names. */
function givenFields<K extends MidField>(input: Partial<SnakeKeys<MidFields>>, keys: readonly K[]): Partial<Pick<MidFields, K>> {
  const wire = input as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => wire[snakeName(k)] !== undefined).map((k) => [k, wire[snakeName(k)]])) as Partial<Pick<MidFields, K>>;
}

/** Masks need the values: sealed under a key no longer in VAULT_KEYS, they show as null (the key id tells why). */
function maskedCredentials(ctx: Pick<ServiceContext, 'keyring'>, mid: Mid): SecretFields | null {
  if (!mid.sealedCredentials) return null;
  try {
    return maskSecretFields(openMidCredentials(ctx.keyring, mid).expose());
  } catch (err) {
    if (err instanceof VaultError) return null;
    throw err;
  }
}

function connectorErrors(schema: unknown, value: unknown, prefix: string, freeForm: (v: unknown) => boolean): FieldError[] {
  if (schema && typeof schema === 'object') return collectErrors(compile(schema as TSchema), value, prefix);
  return freeForm(value) ? [] : [{ field: prefix, message: MESSAGES.notValid }];
}

/** Without a declared schema, a connector's settings are flat scalars and its credentials flat strings. */
const flatScalars = (v: unknown) => typeof v === 'object' && v !== null && Object.values(v).every((x) => ['string', 'number', 'boolean'].includes(typeof x));
const flatStrings = (v: unknown) => typeof v === 'object' && v !== null && Object.values(v).every((x) => typeof x === 'string');

/** The connector (card or APM provider) a MID names. */
function connectorOf(ctx: Pick<ServiceContext, 'connectors'>, name: string): Pick<CardConnector, 'endpoints' | 'isLive' | 'settingsSchema' | 'credentialsSchema'> | undefined {
  return ctx.connectors.get(name) ?? APM_CONNECTOR_SPECS.get(name);
}

/** A MID that moves real money: its merchant is live, or its connector says the MID is (Adyen live, akurateco live). */
function isLiveMid(ctx: Pick<ServiceContext, 'connectors'>, merchant: Pick<Merchant, 'sandbox'>, mid: Pick<MidFields, 'connector' | 'settings'>): boolean {
  const access = { id: '', settings: mid.settings, credentials: new Secret({}), descriptor: null };
  return !merchant.sandbox || connectorOf(ctx, mid.connector)?.isLive?.(access) === true;
}

/** The fields of a write that say where card data goes and as whom: endpoint settings and credentials. */
function securedFields(ctx: Pick<ServiceContext, 'connectors'>, before: MidFields | undefined, after: MidFields, credentialsChanged: boolean): string[] {
  const keys = connectorOf(ctx, after.connector)?.endpoints?.settings ?? [];
  const endpoints = keys.filter((k) => before?.settings[k] !== after.settings[k]).map((k) => `settings.${k}`);
  return credentialsChanged ? [...endpoints, 'credentials'] : endpoints;
}

/**
 * Who may write what (issue 25, item 4): the endpoints and credentials of a live MID are an admin's (role
 * permission mids.live); returns the secured fields written, for the audit entry.
 */
function checkSecured(ctx: Pick<ServiceContext, 'connectors'>, may: MidWriteRights, merchant: Pick<Merchant, 'sandbox'>, before: MidFields | undefined, after: MidFields, credentialsChanged: boolean): string[] {
  const secured = securedFields(ctx, before, after, credentialsChanged);
  const live = isLiveMid(ctx, merchant, after) || (before !== undefined && isLiveMid(ctx, merchant, before));
  if (secured.length > 0 && live && !may.liveEndpoints) throw new GatewayError('adminForbidden');
  return live ? secured : [];
}

/** What the writer's role lets it change (the admin channel says; the command-line tool may all). */
export interface MidWriteRights {
  /** Endpoints and credentials of a live MID. */
  liveEndpoints: boolean;
}

const ALL_RIGHTS: MidWriteRights = { liveEndpoints: true };

/** The rules no schema can say: the connector exists, settings and credentials fit it, limits are ordered. */
function validateMid(ctx: Pick<ServiceContext, 'connectors' | 'connectorTargets'>, mid: MidFields, credentials: SecretFields | null, creating = false): void {
  const errors: FieldError[] = [];
  const apm = APM_CONNECTOR_SPECS.get(mid.connector);
  const connector = connectorOf(ctx, mid.connector);
  if (!connector) errors.push({ field: 'connector', message: MESSAGES.notChoice });
  for (const code of mid.currencies ?? []) if (!isKnownCurrency(code)) errors.push({ field: 'currencies', message: MESSAGES.notCurrency });
  if (mid.minAmount !== null && mid.maxAmount !== null && scaledDecimal(mid.minAmount) > scaledDecimal(mid.maxAmount)) {
    errors.push({ field: 'min_amount', message: `This value should be less than or equal to ${mid.maxAmount}.` });
  }
  errors.push(...validateCaps(mid.dailyCaps, isKnownCurrency));
  if (connector) {
    errors.push(...connectorErrors(connector.settingsSchema, mid.settings, 'settings', flatScalars));
    errors.push(...methodSettingErrors(mid.settings));
    errors.push(...endpointErrors(connector.endpoints, mid.settings, ctx.connectorTargets ?? NO_EXCEPTIONS));
    if (credentials) errors.push(...connectorErrors(connector.credentialsSchema, credentials, 'credentials', flatStrings));
    if (apm && errors.length === 0) errors.push(...apm.check(mid.settings, credentials ?? (creating ? {} : null)));
  }
  if (errors.length > 0) throw GatewayError.invalid(errors);
}

/** A MID's audit details: its merchant, and the live MID's endpoints and credentials the write changed. */
function auditDetails(merchantId: string, secured: readonly string[]): Record<string, unknown> {
  return secured.length > 0 ? { merchant_id: merchantId, live_mid_secured_fields: secured } : { merchant_id: merchantId };
}

/** The stored credentials with the request's changes applied (see MidInput.credentials). */
function mergedCredentials(ctx: Pick<ServiceContext, 'keyring'>, mid: Pick<Mid, 'id' | 'sealedCredentials'> | undefined, given: MidInput['credentials']): SecretFields | null | undefined {
  if (given === undefined) return undefined;
  if (given === null) return null;
  const current = mid?.sealedCredentials ? openMidCredentials(ctx.keyring, mid).expose() : {};
  const next: SecretFields = { ...current };
  for (const [key, value] of Object.entries(given)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return Object.keys(next).length > 0 ? next : null;
}

async function requireMerchant(ctx: Pick<ServiceContext, 'db' | 'keyring'>, merchantId: string): Promise<Merchant> {
  const merchant = isUuid(merchantId) ? await findMerchantById(ctx.db, ctx.keyring, merchantId) : undefined;
  if (!merchant) throw new GatewayError('notFound');
  return merchant;
}

export async function listMerchantMids(ctx: ServiceContext, merchantId: string): Promise<MidView[]> {
  await requireMerchant(ctx, merchantId);
  return withUsage(ctx, (await listMids(ctx.db, merchantId)).map((m) => midView(ctx, m)));
}

/** The views with today's running counts (what a cap is measured against), in one query for them all. */
async function withUsage(ctx: Pick<ServiceContext, 'db' | 'clock'>, views: MidView[]): Promise<MidView[]> {
  const day = utcDay(ctx.clock.now());
  const usage = new Map(views.map((v) => [v.id, { day, volume: {} } as DailyUsage]));
  for (const row of await dailyVolumeOf(ctx.db, views.map((v) => v.id), day)) {
    usage.get(row.midId)!.volume[row.currency] = { count: row.count, amount: formatAmount(row.amount, row.currency) };
  }
  return views.map((v) => ({ ...v, today: usage.get(v.id) }));
}

/** The tag of a MID's configuration (domain/entity-tags.ts): its view without the day's usage, which payments change. */
export const midTag = (view: MidView): string => entityTag({ ...view, today: undefined });

export async function getMerchantMid(ctx: ServiceContext, merchantId: string, midId: string): Promise<MidView> {
  await requireMerchant(ctx, merchantId);
  const mid = isUuid(midId) ? await findMerchantMid(ctx.db, merchantId, midId) : undefined;
  if (!mid) throw new GatewayError('notFound');
  const [view] = await withUsage(ctx, [midView(ctx, mid)]);
  return view!;
}

export async function createMid(ctx: ServiceContext, actor: AuditActor, merchantId: string, input: MidInput & { connector: string }, may: MidWriteRights = ALL_RIGHTS): Promise<MidView> {
  const merchant = await requireMerchant(ctx, merchantId);
  const id = newId();
  const credentials = mergedCredentials(ctx, undefined, input.credentials) ?? null;
  const fields: MidFields = { ...midDefaults(input.connector), ...givenFields(input, MID_FIELDS) };
  validateMid(ctx, fields, credentials, true);
  const secured = checkSecured(ctx, may, merchant, undefined, fields, credentials !== null);
  const sealedCredentials = credentials ? sealSecret(ctx.keyring, credentials, midCredentialsOwner(id)) : null;
  const view = await ctx.db.transaction(async (tx) => {
    await insertMid(tx, { id, merchantId, ...fields, sealedCredentials });
    const created = await findMerchantMid(tx, merchantId, id);
    const shown = midView(ctx, created as Mid);
    await appendAudit(tx, { actor, action: 'mid.create', objectType: 'mid', objectId: id, after: shown, details: auditDetails(merchantId, secured) }, ctx.clock.now());
    return shown;
  });
  ctx.merchants.invalidate();
  return (await withUsage(ctx, [view]))[0]!;
}

/** Changes a MID. With `ifMatch` (the request's If-Match), only while its configuration still has the tag it names (midTag). */
export async function changeMid(
  ctx: ServiceContext, actor: AuditActor, merchantId: string, midId: string, input: MidInput, action = 'mid.update', may: MidWriteRights = ALL_RIGHTS, ifMatch?: string,
): Promise<MidView> {
  const merchant = await requireMerchant(ctx, merchantId);
  if (!isUuid(midId)) throw new GatewayError('notFound');
  const view = await ctx.db.transaction(async (tx) => {
    const mid = await findMerchantMid(tx, merchantId, midId, true);
    if (!mid) throw new GatewayError('notFound');
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, midTag(midView(ctx, mid)))) throw new GatewayError('configurationChanged');
    const credentials = mergedCredentials(ctx, mid, input.credentials);
    const changes: MidChanges = {
      ...midFieldsOf(mid),
      ...givenFields(input, MID_CHANGEABLE),
      sealedCredentials: credentials === undefined ? mid.sealedCredentials : credentials && sealSecret(ctx.keyring, credentials, midCredentialsOwner(mid.id)),
    };
    validateMid(ctx, { ...changes, connector: mid.connector }, credentials ?? null);
    const secured = checkSecured(ctx, may, merchant, midFieldsOf(mid), { ...changes, connector: mid.connector }, credentials !== undefined);
    await updateMid(tx, mid.id, changes, ctx.clock.now());
    const before = midView(ctx, mid);
    const after = midView(ctx, (await findMerchantMid(tx, merchantId, mid.id)) as Mid);
    await appendAudit(tx, { actor, action, objectType: 'mid', objectId: mid.id, before, after, details: auditDetails(merchantId, secured) }, ctx.clock.now());
    return after;
  });
  ctx.merchants.invalidate();
  return (await withUsage(ctx, [view]))[0]!;
}

/**
 * Priorities from an ordered list of every MID of the merchant, best first: the first gets the highest
 * priority. Equal priorities are ordered by creation, so an explicit order is the only unambiguous one.
 */
export async function reorderMids(ctx: ServiceContext, actor: AuditActor, merchantId: string, order: readonly string[]): Promise<MidView[]> {
  await requireMerchant(ctx, merchantId);
  const views = await ctx.db.transaction(async (tx) => {
    await lockMerchantMids(tx, merchantId);
    const mids = await listMids(tx, merchantId);
    const known = new Set(mids.map((m) => m.id));
    const unique = new Set(order);
    if (unique.size !== order.length || order.length !== mids.length || !order.every((id) => known.has(id))) {
      throw GatewayError.field('mid_ids', 'This value should list every MID of the merchant once.');
    }
    const now = ctx.clock.now();
    for (const [index, id] of order.entries()) await setMidPriority(tx, id, (order.length - index) * 10, now);
    const after = await listMids(tx, merchantId);
    await appendAudit(tx, {
      actor, action: 'mid.reorder', objectType: 'merchant', objectId: merchantId,
      before: mids.map((m) => ({ id: m.id, priority: m.priority })), after: after.map((m) => ({ id: m.id, priority: m.priority })),
    }, now);
    return after.map((m) => midView(ctx, m));
  });
  ctx.merchants.invalidate();
  return withUsage(ctx, views);
}
