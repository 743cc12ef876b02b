import type { CardConnector } from './types.ts';
import { AkuratecoConnector } from './akurateco/akurateco.ts';
import { AdyenConnector } from './adyen/adyen.ts';
import { NodeHttpPort, type HttpPort } from './http.ts';
import { exponentOf } from '../domain/money.ts';

/** The sandbox's name: merchants in live mode are never charged through it. */
export const SANDBOX_CONNECTOR = 'sandbox-card';

/**
 * Connectors by the name a MID carries: the given ones (the sandbox's, which src/sandbox/ supplies: it is not a
 * connector of this folder) then the real acquirers. Adding an acquirer is adding an entry.
 */
export function defaultConnectors(http: HttpPort, before: readonly CardConnector[] = []): Map<string, CardConnector> {
  const connectors: CardConnector[] = [...before, new AkuratecoConnector(http), new AdyenConnector(http, exponentOf)];
  return new Map(connectors.map((c) => [c.name, c]));
}
