/**
 * The settings patch rules (services/admin/merchant-settings.ts, pure part), as properties over any sequence of
 * patches: a key given replaces that setting, a key absent leaves it, payer fields change only the entries
 * given, and the stored form is what the view shows back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { patchedSettings, settingsView, type SettingsPatch } from '../../src/services/admin/merchant-settings.ts';
import { LINK_TARGETS, OPTIONAL_FIELD_NAMES, REQUIRABLE_PAYER_FIELDS, RETURN_PARAMETERS } from '../../src/domain/protocol-mapping.ts';
import type { MerchantSettings } from '../../src/domain/model/merchant.ts';

const subset = <T>(values: readonly T[]) => fc.uniqueArray(fc.constantFrom(...values), { maxLength: values.length });

const patchArb: fc.Arbitrary<SettingsPatch> = fc.record({
  callback_fields: subset(OPTIONAL_FIELD_NAMES),
  status_fields: subset(OPTIONAL_FIELD_NAMES),
  return_params: subset(RETURN_PARAMETERS),
  checkout_payment_method: fc.boolean(),
  payer_fields: fc.dictionary(fc.constantFrom(...REQUIRABLE_PAYER_FIELDS), fc.constantFrom('required' as const, 'optional' as const)),
  override_link_target: fc.option(fc.constantFrom(...LINK_TARGETS), { nil: null }),
  connector_options: fc.record({
    mobile_money: fc.option(fc.record({ fee_bearer: fc.constantFrom('merchant' as const, 'payer' as const) }), { nil: null }),
    mail_payout: fc.option(fc.record({ account_uuid: fc.uuid(), fee_calculation_method: fc.constantFrom('account_level' as const, 'transaction_level' as const) }), { nil: null }),
  }, { requiredKeys: [] }),
}, { requiredKeys: [] });

describe('merchant settings patches', () => {
  it('apply like a model: given keys replace, absent keys stay, payer fields merge entry by entry', () => {
    fc.assert(fc.property(fc.array(patchArb, { maxLength: 6 }), (patches) => {
      let stored: MerchantSettings = {};
      const model = { callback_fields: [] as string[], status_fields: [] as string[], return_params: [] as string[], checkout_payment_method: false, override_link_target: null as string | null, payer: new Map<string, string>(), mobile: null as unknown, mail: null as unknown };
      for (const patch of patches) {
        stored = patchedSettings(stored, patch, {});
        if (patch.callback_fields) model.callback_fields = patch.callback_fields;
        if (patch.status_fields) model.status_fields = patch.status_fields;
        if (patch.return_params) model.return_params = patch.return_params;
        if (patch.checkout_payment_method !== undefined) model.checkout_payment_method = patch.checkout_payment_method;
        if (patch.override_link_target !== undefined) model.override_link_target = patch.override_link_target;
        for (const [f, r] of Object.entries(patch.payer_fields ?? {})) model.payer.set(f, r);
        const o = patch.connector_options;
        if (o?.mobile_money !== undefined) model.mobile = o.mobile_money && { fee_bearer: o.mobile_money.fee_bearer };
        if (o?.mail_payout !== undefined) model.mail = o.mail_payout && { account_uuid: o.mail_payout.account_uuid.toLowerCase(), fee_calculation_method: o.mail_payout.fee_calculation_method };
      }
      const view = settingsView(stored);
      assert.deepEqual(view.callback_fields, model.callback_fields);
      assert.deepEqual(view.status_fields, model.status_fields);
      assert.deepEqual(view.return_params, model.return_params);
      assert.equal(view.checkout_payment_method, model.checkout_payment_method);
      assert.equal(view.override_link_target, model.override_link_target);
      for (const f of REQUIRABLE_PAYER_FIELDS) assert.equal(view.payer_fields[f], model.payer.get(f) ?? 'optional');
      assert.deepEqual(view.connector_options.mobile_money, model.mobile);
      assert.deepEqual(view.connector_options.mail_payout, model.mail);
      // What the S2S CARD rules read: only Required fields, each once, in the table's order.
      assert.deepEqual(stored.requiredPayerFields ?? [], REQUIRABLE_PAYER_FIELDS.filter((f) => model.payer.get(f) === 'required'));
    }));
  });

  it('round-trips: patching with the view of a setting changes nothing', () => {
    fc.assert(fc.property(patchArb, (patch) => {
      const stored = patchedSettings({}, patch, {});
      const { connector_options: _o, ...view } = settingsView(stored);
      const again = patchedSettings(stored, { ...view, override_link_target: view.override_link_target }, {});
      assert.deepEqual(settingsView(again), settingsView(stored));
    }));
  });
});
