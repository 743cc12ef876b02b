/**
 * The portal's developer settings writes (issue 30): rotate the hash password with a grace period, change the
 * notification URL and the allowed source addresses. Each goes through the operators' own service (the same checks,
 * compare-and-set and audit), as the merchant user, recorded in the merchant's own audit log too.
 */
import type { ServiceContext } from '../context.ts';
import { rotatePassword, updateMerchantIn } from '../admin/merchants.ts';
import { changeMerchantSettingsIn, type SettingsPatch } from '../admin/merchant-settings.ts';
import { PORTAL_EDITABLE_SETTINGS } from '../../domain/protocol-mapping.ts';
import type { MerchantSettings } from '../../domain/model/merchant.ts';
import { findMerchantById } from '../../store/merchants-repo.ts';
import { GatewayError } from '../../domain/errors.ts';
import { merchantOf, mustMay, portalActor, type PortalUser } from './scope.ts';

export async function portalRotatePassword(ctx: ServiceContext, user: PortalUser, merchantId: string | undefined, graceHours: number) {
  mustMay(user, 'developers.secrets');
  const id = merchantOf(user, merchantId);
  const rotated = await rotatePassword(ctx.db, ctx.keyring, portalActor(user), id, { graceHours }, ctx.clock.now(), { merchantId: id });
  if (!rotated) throw new GatewayError('notFound');
  ctx.merchants.invalidate();
  return { merchantId: id, password: rotated.password, previousValidUntil: rotated.merchant.previousPasswordExpiresAt ?? null };
}

export interface DeveloperSettingsPatch {
  notification_url?: string | null;
  allowed_source_addresses?: string[];
  /** Issue 30 item 3: only when the operator lets the merchant change them (portal_editable_settings), else 403. */
  callback_fields?: string[];
  status_fields?: string[];
  return_params?: string[];
}

/** Refuses (403, naming it) a setting of the patch the operator does not let the merchant change. */
function mustBeEditable(patch: DeveloperSettingsPatch, current: MerchantSettings): void {
  const editable = current.portalEditableSettings ?? [];
  const locked = PORTAL_EDITABLE_SETTINGS.filter((name) => patch[name] !== undefined && !editable.includes(name));
  if (locked.length > 0) throw new GatewayError('portalSettingLocked', locked.map((field) => ({ field, message: 'Your payment provider does not let you change this setting.' })));
}

export async function portalChangeDeveloperSettings(ctx: ServiceContext, user: PortalUser, merchantId: string | undefined, patch: DeveloperSettingsPatch): Promise<void> {
  mustMay(user, 'developers.secrets');
  const id = merchantOf(user, merchantId);
  const actor = portalActor(user);
  if (PORTAL_EDITABLE_SETTINGS.some((name) => patch[name] !== undefined)) mustBeEditable(patch, await currentSettings(ctx, id));
  const settings: SettingsPatch = {};
  for (const key of ['allowed_source_addresses', ...PORTAL_EDITABLE_SETTINGS] as const) if (patch[key] !== undefined) settings[key] = patch[key];
  // One transaction: a request refused for any of its settings changes none of them (the notification URL included).
  await ctx.db.transaction(async (tx) => {
    if (patch.notification_url !== undefined) {
      const changed = await updateMerchantIn(tx, ctx.keyring, actor, id, { notificationUrl: patch.notification_url }, ctx.clock.now(), ctx.callbackTargets, { merchantId: id });
      if (!changed) throw new GatewayError('notFound');
    }
    // Checked again with the merchant's row locked (the operator may have changed portal_editable_settings meanwhile).
    if (Object.keys(settings).length > 0) await changeMerchantSettingsIn(tx, ctx, actor, id, settings, { merchantId: id }, (current) => mustBeEditable(patch, current));
  });
  ctx.merchants.invalidate();
}

async function currentSettings(ctx: ServiceContext, merchantId: string): Promise<MerchantSettings> {
  const merchant = await findMerchantById(ctx.db, ctx.keyring, merchantId);
  if (!merchant) throw new GatewayError('notFound');
  return merchant.settings;
}
