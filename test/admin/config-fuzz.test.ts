/**
 * The configuration endpoints under an admin token, fed generated bodies (any JSON, and valid bodies with one
 * field replaced by a hostile value), on both stores: never a 5xx, every error a D3 body, and whatever was
 * accepted reads back (GET answers 200).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminCall, d3Messages } from './config-support.ts';

const HOSTILE = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('', '\u0000', 'A\u0000B', '\uD800', 'x'.repeat(20_000), '-1', '1e309', 'NaN', '__proto__', '../..', '<script>', '9'.repeat(40), '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----'),
  fc.constantFrom(null, -1, 1.5, 1e308, 2 ** 63, true, [], {}),
);

const VALID: Record<string, Record<string, unknown>> = {
  mids: { connector: 'sandbox-card', name: 'M', payment_mode: 'DMS', priority: 1, enabled: true, currencies: ['EUR'], min_amount: '1.00', max_amount: '9.00', descriptor: 'D', card_on_file_support: false, settings: { a: 'b' }, credentials: { k: 'v' } },
  settings: { callback_fields: ['rrn'], status_fields: ['card'], return_params: ['brand'], checkout_payment_method: true, payer_fields: { payer_zip: 'required' }, override_link_target: '_top', connector_options: { mobile_money: { fee_bearer: 'payer' }, voucher_partner: { partner_ids: { EUR: 'P' }, language: 'en' }, mail_payout: { account_uuid: '2f1c7a4e-5b7d-4c1e-9a8b-3d2e1f0a9b8c' }, token_call: { private_key: 'k'.repeat(50) } } },
  wallets: { google_pay: { environment: 'TEST', allowed_auth_methods: ['PAN_ONLY'], supported_networks: ['VISA'], merchant_identifier: 'M', gateway: 'g', gateway_merchant_id: 'x', extra_parameters: false } },
};

/** A valid body with the value at one path (possibly nested) replaced. */
function mutated(body: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  const inner = body[head];
  return { ...body, [head]: rest.length > 0 && inner && typeof inner === 'object' && !Array.isArray(inner) ? mutated(inner as Record<string, unknown>, rest, value) : value };
}

function paths(body: Record<string, unknown>, prefix: string[] = []): string[][] {
  return Object.entries(body).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? [[...prefix, k], ...paths(v as Record<string, unknown>, [...prefix, k])] : [[...prefix, k]]));
}

for (const { kind, skip } of await storeKinds()) {
  describe(`configuration endpoints under generated input (${kind})`, { skip }, () => {
    let t: TestGateway;
    const ADMIN = `admin-fuzz-${kind}`;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
    });
    after(async () => t?.close());

    it('answers every generated body without a 5xx, errors in D3', async () => {
      const m = await t.addMerchant();
      const midId = (await adminCall(t.baseUrl, 'GET', `/admin/v1/merchants/${m.id}/mids`, ADMIN)).body.mids[0].id;
      const targets: [string, string, string][] = [
        ['POST', `/admin/v1/merchants/${m.id}/mids`, 'mids'],
        ['PATCH', `/admin/v1/merchants/${m.id}/mids/${midId}`, 'mids'],
        ['PATCH', `/admin/v1/merchants/${m.id}/settings`, 'settings'],
        ['PUT', `/admin/v1/merchants/${m.id}/wallets`, 'wallets'],
        ['PUT', `/admin/v1/merchants/${m.id}/mids/order`, 'order'],
        ['PUT', `/admin/v1/merchants/${m.id}/routing`, 'routing'],
        ['POST', `/admin/v1/merchants/${m.id}/routing/dry-run`, 'dryRun'],
      ];
      VALID.routing = { rules: [{ name: 'r', when: { currencies: ['EUR'], amount: { min: '1.00' }, custom_data: { tier: null } }, then: { kind: 'split', shares: [{ weight: 60, mid_ids: [midId] }, { weight: 40, mid_ids: [midId] }] } }], max_extra_attempts: 1 };
      VALID.dryRun = { operation: 'sale', amount: '10.00', currency: 'EUR', bin: '411111', billing_country: 'DE', recurring: false, custom_data: { tier: 'gold' } };
      const bodyArb = fc.tuple(fc.nat(targets.length - 1), fc.nat(9), fc.nat(), HOSTILE, fc.jsonValue({ maxDepth: 4 })).map(([ti, shape, pi, value, any]) => {
        const [method, path, kindOfBody] = targets[ti]!;
        const valid = VALID[kindOfBody] ?? { mid_ids: [midId] };
        const all = paths(valid);
        // One in five bodies is any JSON, one in five the valid body as it is, the rest the valid body with one field replaced.
        const body = shape < 2 ? any : shape < 4 ? valid : mutated(valid, all[pi % all.length]!, value);
        return { method, path, body };
      });
      const byStatus: Record<number, number> = {};
      const samples = fc.sample(bodyArb, { numRuns: 250, seed: kind === 'pglite' ? 11 : 12 });
      for (const { method, path, body } of samples) {
        const res = await adminCall(t.baseUrl, method, path, ADMIN, JSON.stringify(body));
        byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
        assert.ok(res.status < 500, `${method} ${path} ${JSON.stringify(body).slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}`);
        if (res.status >= 400) d3Messages(res);
      }
      assert.ok((byStatus[200] ?? 0) + (byStatus[201] ?? 0) > 25 && (byStatus[400] ?? 0) > 100, `both accepted and refused bodies: ${JSON.stringify(byStatus)}`);
      for (const path of [`/admin/v1/merchants/${m.id}/mids`, `/admin/v1/merchants/${m.id}/settings`, `/admin/v1/merchants/${m.id}/wallets`, `/admin/v1/merchants/${m.id}/routing`]) {
        const back = await adminCall(t.baseUrl, 'GET', path, ADMIN);
        assert.equal(back.status, 200, `${path}: ${back.text.slice(0, 200)}`);
      }
    });
  });
}
