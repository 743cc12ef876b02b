/**
 * Which MID-configured APM provider carries a payment (issue 17 item 8): the merchant's enabled `apm-provider`
 * MIDs whose kind serves the method and whose currencies and limits allow the order, best priority first. The
 * MID chosen is kept with the payment (details.apm.midId), so every later call (status, code, cancel) goes to
 * the same provider with the same credentials. No such MID: the merchant's default APM connector (an upstream
 * MID's, services/apm/connector.ts, or the sandbox).
 */
import type { ServiceContext } from '../context.ts';
import { withConnectorOptions, type Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { findMidById, listMids } from '../../store/merchants-repo.ts';
import { loadMerchantConfig, openOptionSecrets } from '../../store/merchant-config-repo.ts';
import type { MidAccess } from '../../connectors/types.ts';
import type { ApmConnector } from '../../connectors/apm-types.ts';
import { NodeHttpPort, type HttpPort } from '../../connectors/http.ts';
import { NO_EXCEPTIONS, type ConnectorTargetPolicy } from '../../domain/connector-targets.ts';
import { APM_PROVIDER, ProviderApmConnector } from '../../connectors/apm-provider/provider-apm.ts';
import { providerKind, servesMethod } from '../../domain/methods/provider-kinds.ts';
import { NO_RULES, PATHS, route } from '../../domain/routing/route.ts';
import type { ConnectorNames, EligibilityRule } from '../../domain/routing/eligibility.ts';
import { midAccess } from '../connector-access.ts';
import { apmOf } from './details.ts';
import { apmConnector } from './connector.ts';

/** One HTTP port per connector target policy (one per gateway), so each gateway's rule guards its provider calls. */
const ports = new WeakMap<ConnectorTargetPolicy, HttpPort>();
const http = (policy: ConnectorTargetPolicy): HttpPort => ports.get(policy) ?? ports.set(policy, new NodeHttpPort(policy)).get(policy)!;

/** Only provider MIDs carry a provider payment (they are reached by HTTP, not through the connector registry). */
const PROVIDERS: ConnectorNames = { has: (name) => name === APM_PROVIDER };

/** A provider MID whose kind (and method list) serves the method. */
const serving = (method: string): EligibilityRule<Mid> => ({
  reason: 'method',
  allows(mid) {
    const kind = providerKind(mid.settings.kind);
    const methods = Array.isArray(mid.settings.methods) ? (mid.settings.methods as string[]) : undefined;
    return !!kind && servesMethod(kind, methods, method);
  },
});

/** The provider MID for a method and order, if the merchant has one: the router's first on the APM path. */
export async function providerMidFor(ctx: ServiceContext, merchant: Merchant, method: string, amount: { minor: bigint; currency: string }): Promise<Mid | undefined> {
  const mids = await listMids(ctx.db, merchant.id);
  const facts = { intent: 'sale' as const, money: amount, method, recurring: false };
  return route(facts, mids, NO_RULES, { connectors: PROVIDERS, checks: PATHS.apm, also: [serving(method)] }).candidates[0];
}

/**
 * The private key of the token call: the MID's own, else the merchant's `connector_options.token_call.private_key`
 * of the admin panel (sealed with the merchant's option secrets, opened only here).
 */
async function withTokenCallKey(ctx: ServiceContext, merchant: Merchant, credentials: MidAccess['credentials']): Promise<MidAccess['credentials']> {
  if (credentials.expose().private_key || !merchant.settings.connectorOptions?.tokenCall) return credentials;
  const config = await loadMerchantConfig(ctx.db, ctx.keyring, merchant.id);
  const key = config ? openOptionSecrets(ctx.keyring, config).expose().token_call_private_key : undefined;
  return key ? credentials.map((c) => ({ ...c, private_key: key })) : credentials;
}

/** A provider MID's connector: its settings over the merchant's connector options, its credentials over the token-call key. */
export async function providerConnector(ctx: ServiceContext, mid: Mid, merchant: Merchant): Promise<ApmConnector> {
  const access = midAccess(ctx, mid);
  const credentials = await withTokenCallKey(ctx, merchant, access.credentials);
  return new ProviderApmConnector(http(ctx.connectorTargets ?? NO_EXCEPTIONS), { ...access, credentials, settings: withConnectorOptions(merchant, access.settings) });
}

/** The connector of a payment: its provider MID's, or the merchant's default one. */
export async function connectorOfPayment(ctx: ServiceContext, merchant: Merchant, payment: Payment): Promise<ApmConnector> {
  const midId = apmOf(payment)?.midId;
  if (!midId) return apmConnector(ctx, merchant, payment); // the payment's upstream MID, or the sandbox
  const mid = await findMidById(ctx.db, midId);
  if (!mid || mid.connector !== APM_PROVIDER) throw new Error(`payment ${payment.id}: its provider MID is gone`);
  return providerConnector(ctx, mid, merchant);
}

/** The notification address of a payment at a MID-configured provider. */
export const providerNotifyUrl = (ctx: ServiceContext, paymentId: string) => `${ctx.baseUrl}/apm/provider/notify/${paymentId}`;
