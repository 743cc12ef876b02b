/**
 * Step 6 of an attempt: the connector call, outside any transaction (design principle 4). A connector that throws
 * or hangs past its own timeout leaves the payment in flight: the re-check worker asks the acquirer about it
 * later, never charges it again. An endpoint the connector target rule refuses (nothing sent) is a decline.
 */
import type { ServiceContext } from '../context.ts';
import type { ConnectorOutcome } from '../../connectors/types.ts';
import { ConnectorTargetRefused } from '../../connectors/http.ts';
import { midAccess } from '../connector-access.ts';
import { reached, type AttemptState } from './types.ts';

/** The step: the MID's connector asked, unless the attempt was refused before any call (screen.ts). */
export async function callStep(ctx: ServiceContext, state: AttemptState): Promise<void> {
  const { claimed, connector, transId } = reached(state, 'recorded');
  const { refusal } = state;
  const mid = reached(state, 'routed').taken.mid;
  const { request } = reached(state, 'sent');
  const outcome = refusal ?? await callConnector(ctx, () => connector.authorize(request, midAccess(ctx, mid)));
  state.answer = { payment: claimed, transId, outcome, refused: refusal !== undefined };
}

export async function callConnector(ctx: ServiceContext, call: () => Promise<ConnectorOutcome>, paymentId?: string): Promise<ConnectorOutcome> {
  try {
    return await call();
  } catch (err) {
    // Refused before anything was sent (an internal or non-https endpoint): a decline, not a payment in doubt.
    if (err instanceof ConnectorTargetRefused) {
      ctx.logger.error({ ...(paymentId ? { paymentId } : {}), err: err.message }, 'connector endpoint refused; nothing sent');
      return { kind: 'declined', reason: 'Connector endpoint refused', error: { code: 'configuration_error', rawMessage: 'endpoint refused by the connector target rule' } };
    }
    ctx.logger.error({ ...(paymentId ? { paymentId } : {}), err: (err as Error).message }, 'connector call failed; payment left for re-check');
    return { kind: 'pending', reason: 'Connector unavailable' };
  }
}
