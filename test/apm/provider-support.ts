/**
 * What an operator does to try a provider kind against the sandbox provider: an account issued by the provider over
 * HTTP, then a merchant with an `apm-provider` MID of that kind made through the admin API (credentials sealed).
 */
import assert from 'node:assert/strict';
import type { TestGateway, TestMerchant } from '../support/gateway.ts';
import type { AdminCall } from '../admin/support.ts';

export interface ProviderAccount {
  api_key: string;
  api_secret: string;
  private_key: string;
}

export const providerUrl = (gw: TestGateway) => `${gw.baseUrl}/sandbox/apm-provider`;

export async function providerAccount(gw: TestGateway): Promise<ProviderAccount> {
  const res = await fetch(`${providerUrl(gw)}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 201);
  return (await res.json()) as ProviderAccount;
}

export interface ProviderMidOptions {
  settings?: Record<string, unknown>;
  /** Default: the new account's API key, secret and private key. */
  credentials?: Record<string, string>;
  /** Further MID fields (currencies, limits). */
  mid?: Record<string, unknown>;
  notificationUrl?: string;
}

/** A merchant whose only APM provider is a MID of `kind`, configured by an operator. */
export async function merchantWithProvider(gw: TestGateway, admin: AdminCall, kind: string, o: ProviderMidOptions = {}): Promise<TestMerchant & { acc: ProviderAccount }> {
  const m = await gw.addMerchant({ notificationUrl: o.notificationUrl });
  const acc = await providerAccount(gw);
  const res = await admin('POST', `/admin/v1/merchants/${m.id}/mids`, {
    connector: 'apm-provider', name: `${kind} MID`, payment_mode: 'SMS/DMS',
    settings: { kind, base_url: providerUrl(gw), ...o.settings },
    credentials: o.credentials ?? { api_key: acc.api_key, api_secret: acc.api_secret, private_key: acc.private_key }, ...o.mid,
  });
  assert.equal(res.status, 201, res.text);
  assert.notEqual(res.body.credentials.api_secret, acc.api_secret, 'credentials leave the admin API masked');
  return Object.assign(m, { acc });
}
