/** What /metrics reports of the gateway's work besides HTTP: see store/operational-figures-repo.ts. */
import type { ServiceContext } from './context.ts';
import { operationalFigures, type OperationalFigures } from '../store/operational-figures-repo.ts';

export type { OperationalFigures };

/** A callback due this long ago and still not sent means the dispatchers are behind (they poll every second). */
const OVERDUE_AFTER_MS = 60_000;

export function currentFigures(ctx: Pick<ServiceContext, 'db' | 'clock'>): Promise<OperationalFigures> {
  const now = ctx.clock.now();
  return operationalFigures(ctx.db, now, new Date(now.getTime() - OVERDUE_AFTER_MS));
}
