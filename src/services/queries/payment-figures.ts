/**
 * The payment figures of a date range beside the period before it (issue 31 item 5): the console's home, and the
 * portal's for one merchant (pass `merchantIds`). Days that ended more than a day ago are counted once into a
 * rollup on first read; the last two days are counted from payments on every read.
 */
import type { Database } from '../../store/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { GatewayError } from '../../domain/errors.ts';
import { addDays, dayOf, figurePeriods, foldFigures, type FigureGrouping, type FoldedFigures } from '../../domain/payment-figures.ts';
import { countDays, figureNames, figureRows } from '../../store/payment-figures-repo.ts';

export interface FigureRequest {
  /** UTC days, both included; default: the 30 days up to today. */
  from?: string;
  to?: string;
  by?: FigureGrouping;
  merchantIds?: readonly string[];
  /** Test keys' (sandbox merchants') or live keys' payments only; undefined: both. */
  mode?: 'test' | 'live';
}

export interface PaymentFigures extends Omit<FoldedFigures, 'groups'> {
  from: string;
  to: string;
  previous_from: string;
  previous_to: string;
  by: FigureGrouping;
  groups: (FoldedFigures['groups'][number] & { name: string })[];
}

/** Days before this one (UTC) no longer change: yesterday and today are counted live. */
const liveFromOf = (now: Date) => addDays(dayOf(now), -1);

export async function paymentFigures(db: Database, clock: Clock, req: FigureRequest): Promise<PaymentFigures> {
  const now = clock.now();
  const to = req.to ?? dayOf(now);
  const periods = figurePeriods(req.from, to);
  if ('problem' in periods) throw GatewayError.field(periods.field, periods.problem);
  const by = req.by ?? 'merchant';
  const liveFrom = liveFromOf(now);
  await countDays(db, periods.previous.from, periods.current.until < liveFrom ? periods.current.until : liveFrom, now);
  const rows = await figureRows(db, {
    previousFrom: periods.previous.from, from: periods.current.from, until: periods.current.until, liveFrom, by,
    ...(req.merchantIds ? { merchantIds: req.merchantIds } : {}), ...(req.mode ? { mode: req.mode } : {}),
  });
  const folded = foldFigures(periods, rows);
  const names = by === 'connector' ? new Map<string, string>() : await figureNames(db, folded.groups.map((g) => g.key).filter(Boolean));
  return {
    from: periods.current.from, to, previous_from: periods.previous.from, previous_to: addDays(periods.current.from, -1), by,
    ...folded,
    groups: folded.groups.map((g) => ({ ...g, name: g.key === '' ? noKeyName(by) : names.get(g.key) ?? g.key })),
  };
}

function noKeyName(by: FigureGrouping): string {
  return by === 'merchant' ? 'Unknown merchant' : 'Refused before routing (no MID)';
}
