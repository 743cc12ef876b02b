/**
 * Step 6 of an attempt: the connector call, outside any transaction (design principle 4). A connector that throws
 * or hangs past its own timeout leaves the payment in flight: the re-check worker asks the acquirer about it
 * later, never charges it again.
 */
import type { ServiceContext } from '../context.ts';
import type { ConnectorOutcome } from '../../connectors/types.ts';

export async function callConnector(ctx: ServiceContext, call: () => Promise<ConnectorOutcome>, paymentId?: string): Promise<ConnectorOutcome> {
  try {
    return await call();
  } catch (err) {
    ctx.logger.error({ ...(paymentId ? { paymentId } : {}), err: (err as Error).message }, 'connector call failed; payment left for re-check');
    return { kind: 'pending', reason: 'Connector unavailable' };
  }
}
