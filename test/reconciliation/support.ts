/**
 * Writes a settlement report as Adyen does: the Settlement details report's published columns in their default
 * order, one line per record (test/reconciliation). Amounts are decimal strings; a Settled row's fee is split as
 * Adyen splits it (markup, scheme fees, interchange) and its net is gross less fee; a MerchantPayout row closes the
 * batch with the batch's net.
 */
import { ADYEN_COLUMNS } from '../../src/domain/reconciliation/layouts.ts';
import { formatAmount } from '../../src/domain/money.ts';
import { readDecimal } from '../../src/domain/reconciliation/report.ts';

export interface AdyenLine {
  psp?: string;
  ref?: string;
  type: string;
  gross?: string;
  fee?: string;
  /** For batch bookings (Fee, corrections): the net, signed. */
  net?: string;
  currency?: string;
  at: string;
  zone?: string;
}

const minor = (v: string, c: string) => readDecimal(v, c, 'point', true)!;

export function adyenReport(lines: readonly AdyenLine[], opts: { batch: string; payout: boolean; company?: string; account?: string }): string {
  const out = [ADYEN_COLUMNS.join(',')];
  let net = 0n;
  let currency = 'USD';
  for (const l of lines) {
    const c = l.currency ?? 'USD';
    currency = c;
    const cells = new Array<string>(ADYEN_COLUMNS.length).fill('');
    const set = (name: (typeof ADYEN_COLUMNS)[number], v: string) => { cells[ADYEN_COLUMNS.indexOf(name)] = v; };
    set('Company Account', opts.company ?? 'Portcullis');
    set('Merchant Account', opts.account ?? 'PortcullisECOM');
    set('Creation Date', l.at);
    set('TimeZone', l.zone ?? 'UTC');
    set('Type', l.type);
    set('Net Currency', c);
    set('Batch Number', opts.batch);
    if (l.gross !== undefined) {
      const gross = minor(l.gross, c) ?? 0n;
      const fee = minor(l.fee ?? '0', c);
      set('Psp Reference', l.psp ?? '');
      set('Merchant Reference', l.ref ?? '');
      set('Payment Method', 'visa');
      set('Payment Method Variant', 'visaclassic');
      set('Modification Reference', l.psp ? `${l.psp.slice(0, 15)}M` : '');
      set('Gross Currency', c);
      set('Exchange Rate', '1');
      const credit = l.type === 'Settled' || l.type === 'ChargebackReversed';
      set(credit ? 'Gross Credit (GC)' : 'Gross Debit (GC)', l.gross);
      const n = credit ? gross - fee : -(gross + fee);
      set(n >= 0n ? 'Net Credit (NC)' : 'Net Debit (NC)', formatAmount(n >= 0n ? n : -n, c));
      // Adyen splits the fee: markup, scheme fees, interchange (here: the markup carries the rest).
      const interchange = fee / 2n;
      const scheme = fee / 10n;
      set('Interchange (NC)', formatAmount(interchange, c));
      set('Scheme Fees (NC)', formatAmount(scheme, c));
      set('Markup (NC)', formatAmount(fee - interchange - scheme, c));
      net += n;
    } else {
      const n = minor(l.net ?? '0', c);
      set(n >= 0n ? 'Net Credit (NC)' : 'Net Debit (NC)', formatAmount(n >= 0n ? n : -n, c));
      if (l.type === 'Fee') set('Modification Reference', 'Transaction Fees');
      net += n;
    }
    out.push(cells.join(','));
  }
  if (opts.payout) {
    const cells = new Array<string>(ADYEN_COLUMNS.length).fill('');
    const set = (name: (typeof ADYEN_COLUMNS)[number], v: string) => { cells[ADYEN_COLUMNS.indexOf(name)] = v; };
    set('Company Account', opts.company ?? 'Portcullis');
    set('Merchant Account', opts.account ?? 'PortcullisECOM');
    set('Creation Date', lines.at(-1)?.at ?? '2030-01-01 00:00:00');
    set('TimeZone', 'UTC');
    set('Type', 'MerchantPayout');
    set('Net Currency', currency);
    set('Net Debit (NC)', formatAmount(net, currency));
    set('Batch Number', opts.batch);
    out.push(cells.join(','));
  }
  return `${out.join('\n')}\n`;
}
