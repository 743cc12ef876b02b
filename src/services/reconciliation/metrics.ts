/**
 * Reconciliation's figures for /metrics (issue 28): open exceptions (mismatched, missing, unexpected rows not yet
 * resolved) and their amounts, per MID and currency, read from the store at each scrape. Amounts are in minor
 * units (an integer: no float ever holds money; Prometheus shows it as a number). Each series carries `mode`, its
 * MID's (its merchant's: test for a sandbox merchant's, a test key's; issue 25 item 26), so an alert reads
 * `{mode="live"}` and a sandbox report's exceptions never page anyone.
 */
import type { ServiceContext } from '../context.ts';
import { openPerMid } from '../../store/reconciliation-repo.ts';

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, ' ');

export async function reconciliationMetricLines(ctx: Pick<ServiceContext, 'db'>): Promise<string[]> {
  const open = await openPerMid(ctx.db);
  const lines = [
    '# HELP portcullis_reconciliation_unreconciled_rows Open reconciliation exceptions (mismatched, missing, unexpected; not resolved) per MID, currency and key mode.',
    '# TYPE portcullis_reconciliation_unreconciled_rows gauge',
    ...open.map((o) => `portcullis_reconciliation_unreconciled_rows{mid="${esc(o.midId)}",currency="${esc(o.currency)}",mode="${o.mode}"} ${o.rows}`),
    '# HELP portcullis_reconciliation_unreconciled_amount_minor Amount of the open reconciliation exceptions per MID, currency and key mode, in the currency\'s minor units.',
    '# TYPE portcullis_reconciliation_unreconciled_amount_minor gauge',
    ...open.map((o) => `portcullis_reconciliation_unreconciled_amount_minor{mid="${esc(o.midId)}",currency="${esc(o.currency)}",mode="${o.mode}"} ${o.amount}`),
  ];
  return lines;
}
