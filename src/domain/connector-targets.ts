/**
 * Where the gateway may send a connector's requests (full card data goes there): the SSRF rule of callback
 * targets (callback-targets.ts, the one address classifier) applied to the endpoints a MID's settings name.
 * Refused: loopback, private, link-local, metadata and internal names, unless the host is named in the
 * operator's CONNECTOR_ALLOWED_PRIVATE_HOSTS (an on-premise acquirer proxy, the test suite's local peers) or
 * the URL's origin is the gateway's own outside production (its sandbox provider). In production an endpoint
 * is https. A connector may declare its acquirer's known hosts (Adyen's live and test hosts): others are
 * refused, an operator-allowed host excepted. The same rule runs at save (the admin API) and at call time on
 * the addresses the name resolves to (connectors/http.ts). Pure: no DNS here.
 */
import { callbackUrlProblem, hostKey, hostKeys, httpUrl } from './callback-targets.ts';

/** A MID endpoint's refusal, naming the setting that allows an internal host. */
export const CONNECTOR_PRIVATE_TARGET_MESSAGE = 'This URL must point to a public address (an operator allows an internal host with CONNECTOR_ALLOWED_PRIVATE_HOSTS).';
import { MESSAGES, type FieldError } from './errors.ts';

export interface ConnectorTargetPolicy {
  readonly production: boolean;
  /** Host names or address literals (hostKey form) allowed although internal or outside a connector's known hosts. */
  readonly allowedPrivateHosts: ReadonlySet<string>;
  /** Origins allowed although internal (outside production, the gateway's own BASE_URL). */
  readonly allowedOrigins: ReadonlySet<string>;
}

/** What a connector declares about its endpoints: the settings that hold them, and its acquirer's hosts. */
export interface ConnectorEndpoints {
  /** Keys of the MID's settings whose values are URLs the connector calls. */
  readonly settings: readonly string[];
  /** The acquirer's hosts (`*.example.com` matches any subdomain); absent: any public host. */
  readonly knownHosts?: readonly string[];
}

export const HTTPS_ONLY_MESSAGE = 'This URL must use https in production.';
export const UNKNOWN_HOST_MESSAGE = 'This host is not one of the connector\'s hosts.';

export function connectorTargetPolicy(opts: { production: boolean; allowedPrivateHosts: readonly string[]; ownUrl?: string }): ConnectorTargetPolicy {
  const origins = new Set<string>();
  if (!opts.production && opts.ownUrl) {
    try {
      origins.add(new URL(opts.ownUrl).origin);
    } catch {
      // no origin of its own to allow
    }
  }
  return { production: opts.production, allowedPrivateHosts: hostKeys(opts.allowedPrivateHosts), allowedOrigins: origins };
}

/** The rule with no exception (production's without CONNECTOR_ALLOWED_PRIVATE_HOSTS, but http allowed). */
export const NO_EXCEPTIONS: ConnectorTargetPolicy = { production: false, allowedPrivateHosts: new Set(), allowedOrigins: new Set() };

/** No rule at all: a connector built by hand (a test against its own mock), never the gateway's. */
export const ANY_TARGET: ConnectorTargetPolicy = { production: false, allowedPrivateHosts: new Set(['*']), allowedOrigins: new Set() };

function isKnownHost(host: string, known: readonly string[]): boolean {
  return known.some((k) => (k.startsWith('*.') ? host.endsWith(k.slice(1)) : host === k));
}

/** True when the policy lets this host resolve to an internal address (checked again after DNS). */
export function allowsInternal(policy: ConnectorTargetPolicy, url: URL): boolean {
  return policy.allowedPrivateHosts.has('*') || policy.allowedPrivateHosts.has(hostKey(url.hostname)) || policy.allowedOrigins.has(url.origin);
}

/** Why the gateway must not send a connector's request to this URL, or undefined when it may. */
export function connectorUrlProblem(url: string, policy: ConnectorTargetPolicy, knownHosts?: readonly string[]): string | undefined {
  const parsed = httpUrl(url);
  if (!parsed) return MESSAGES.notUrl;
  if (policy.production && parsed.protocol !== 'https:') return HTTPS_ONLY_MESSAGE;
  if (allowsInternal(policy, parsed)) return undefined;
  if (knownHosts && !isKnownHost(hostKey(parsed.hostname), knownHosts)) return UNKNOWN_HOST_MESSAGE;
  return callbackUrlProblem(url) === undefined ? undefined : CONNECTOR_PRIVATE_TARGET_MESSAGE;
}

/** The D3 field errors of a MID's endpoint settings (`settings.<key>`). */
export function endpointErrors(endpoints: ConnectorEndpoints | undefined, settings: Readonly<Record<string, unknown>>, policy: ConnectorTargetPolicy): FieldError[] {
  return (endpoints?.settings ?? []).flatMap((key) => {
    const value = settings[key];
    const problem = typeof value === 'string' ? connectorUrlProblem(value, policy, endpoints?.knownHosts) : undefined;
    return problem ? [{ field: `settings.${key}`, message: problem }] : [];
  });
}
