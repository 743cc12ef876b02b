import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useModeQuery } from '../mode';
import { call, type Payment, type PaymentQuery } from '../api/client';
import { queryParamsOf } from '../queryParams';
import { csvCell } from '../csv';
import { Empty, ErrorNote, Field, Money, Show, StatusBadge, Table, Time, useLoad } from '../ui';
import { MerchantName, MerchantPicker, useMerchants } from '../names';
import { useCan } from '../session';
import { BulkRefund, type RefundOutcome } from './BulkRefund';
import { useT, type Key } from '../i18n';

/** Filters in the order the form shows them, with their labels; every query parameter of the API but paging. */
const FILTERS: { name: keyof PaymentQuery; label: string; key?: Key; type?: string; placeholder?: string }[] = [
  { name: 'card_last4', label: 'Card last 4', key: 'payments.cardLast4', placeholder: '1111' },
  { name: 'card_first6', label: 'Card first 6', key: 'payments.cardFirst6', placeholder: '411111' },
  { name: 'email', label: 'Payer e-mail', key: 'payments.email', type: 'search' },
  { name: 'order_id', label: 'Order id', key: 'payments.order' },
  { name: 'payment_id', label: 'Payment id' },
  { name: 'trans_id', label: 'Transaction id' },
  { name: 'merchant_id', label: 'Merchant' },
  { name: 'status', label: 'Status' },
  { name: 'currency', label: 'Currency', placeholder: 'EUR' },
  { name: 'amount_from', label: 'Amount from', placeholder: '10.00' },
  { name: 'amount_to', label: 'Amount to', placeholder: '500.00' },
  { name: 'method', label: 'Method', placeholder: 'card' },
  { name: 'channel', label: 'Channel' },
  { name: 'created_from', label: 'Created from', type: 'datetime-local' },
  { name: 'created_to', label: 'Created to', type: 'datetime-local' },
  { name: 'initiator', label: 'Initiator' },
  { name: 'source', label: 'Source' },
  { name: 'sequence', label: 'Sequence' },
  { name: 'needs_operator', label: 'Needs an operator' },
];
const PAGING = new Set(['limit', 'cursor']);
/** Shown at once; the others fold under "More filters" (open when one is set), so a phone sees the results. */
const MAIN_FILTERS = 4;
const PARAMS = queryParamsOf('/admin/v1/payments');
const optionsOf = (name: string) => PARAMS.find((p) => p.name === name)?.values?.filter((v) => name !== 'status' || v === v.toLowerCase());

/** Dates typed in the operator's zone go to the API as instants. */
const toApi = (name: string, value: string) => (name.startsWith('created_') && value && !value.endsWith('Z') ? new Date(value).toISOString() : value);
const toInput = (name: string, value: string) => {
  if (!name.startsWith('created_') || !value) return value;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  const local = new Date(d.getTime() - d.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
};

function queryOf(search: URLSearchParams): PaymentQuery {
  const q: Record<string, string> = {};
  for (const [k, v] of search) if (v && PARAMS.some((p) => p.name === k) && !PAGING.has(k)) q[k] = v;
  return q as PaymentQuery;
}

const CSV_COLUMNS: (keyof Payment)[] = ['id', 'created_at', 'merchant_id', 'order_id', 'status', 'amount', 'captured_amount', 'refunded_amount', 'currency', 'method', 'brand', 'card', 'payer_email', 'channel', 'operation', 'initiator', 'source', 'sequence'];

/** Every page of the result (up to 10,000 payments) as CSV. */
async function exportCsv(query: PaymentQuery): Promise<void> {
  const rows: Payment[] = [];
  let cursor: string | undefined;
  do {
    // The API's largest page (MAX_PAGE in services/admin/payment-search.ts); a larger limit is refused with a 400.
    const page = await call('get', '/admin/v1/payments', { query: { ...query, limit: '200', cursor } });
    rows.push(...page.payments);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && rows.length < 10_000);
  const text = [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\r\n');
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `payments-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.csv`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Payments() {
  const t = useT();
  const [search, setSearch] = useSearchParams();
  const modeQuery = useModeQuery();
  const query = { ...queryOf(search), ...modeQuery };
  const key = JSON.stringify(query);
  const [more, setMore] = useState<{ key: string; payments: Payment[]; cursor: string | null }>();
  const [exportError, setExportError] = useState<Error>();
  const [exporting, setExporting] = useState(false);
  const first = useLoad(() => call('get', '/admin/v1/payments', { query: { ...query, limit: '50' } }), key);
  const can = useCan();
  const acts = can('payments.act');
  const [picked, setPicked] = useState<Payment[]>([]);
  const [refunded, setRefunded] = useState<RefundOutcome[]>();

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) next.set(k, toApi(k, v.trim()));
    setSearch(next);
  };
  const loadMore = async (cursor: string) => {
    const page = await call('get', '/admin/v1/payments', { query: { ...query, limit: '50', cursor } });
    setMore((m) => ({ key, payments: [...(m?.key === key ? m.payments : []), ...page.payments], cursor: page.next_cursor }));
  };
  const extra = more?.key === key ? more : undefined;
  const merchants = useMerchants();
  const filterField = (f: (typeof FILTERS)[number]) => {
    if (f.name === 'merchant_id') return <MerchantPicker key={f.name} name={f.name} defaultValue={search.get(f.name) ?? ''} />;
    const options = optionsOf(f.name);
    const value = toInput(f.name, search.get(f.name) ?? '');
    return (
      <Field key={f.name} label={f.key ? t(f.key) : f.label}>
        {(id) => options
          ? <select id={id} name={f.name} defaultValue={value}><option value="">Any</option>{options.map((o) => <option key={o} value={o}>{o}</option>)}</select>
          : <input id={id} name={f.name} type={f.type ?? 'text'} defaultValue={value} placeholder={f.placeholder} />}
      </Field>
    );
  };

  return (
    <>
      <h1>{t('nav.payments')}</h1>
      <form className="filters" onSubmit={apply} aria-label="Filter payments" key={key}>
        {FILTERS.slice(0, MAIN_FILTERS).map(filterField)}
        <details className="more-filters" open={FILTERS.slice(MAIN_FILTERS).some((f) => search.get(f.name))}>
          <summary>{t('payments.more')}</summary>
          <div className="grid">{FILTERS.slice(MAIN_FILTERS).map(filterField)}</div>
        </details>
        <div className="actions">
          <button type="submit" className="primary">{t('payments.search')}</button>
          <button type="button" onClick={() => setSearch(new URLSearchParams())}>{t('payments.clear')}</button>
          <button type="button" disabled={exporting} onClick={() => {
            setExporting(true);
            setExportError(undefined);
            exportCsv(query).catch(setExportError).finally(() => setExporting(false));
          }}>{exporting ? t('payments.exporting') : t('payments.export')}</button>
        </div>
      </form>
      {exportError && <ErrorNote error={exportError} />}
      <Show loaded={first} what="payments">
        {(page) => {
          const payments = [...page.payments, ...(extra?.payments ?? [])];
          const cursor = extra ? extra.cursor : page.next_cursor;
          if (payments.length === 0) return <Empty>{t('payments.none')}</Empty>;
          return (
            <>
              {acts && (
                <div className="actions" role="group" aria-label="Selected payments">
                  <BulkRefund picked={picked} done={(o) => { setRefunded(o); setPicked([]); first.reload(); setMore(undefined); }} />
                </div>
              )}
              {refunded && (
                <div role="status" className="notice">
                  <p>{refunded.filter((o) => o.ok).length} of {refunded.length} refunded.</p>
                  <ul>{refunded.map((o) => <li key={o.orderId}>{o.orderId}: {o.text}</li>)}</ul>
                </div>
              )}
              <Table label="Payments found">
                <thead>
                  <tr>{acts && <th scope="col"><span className="sr-only">Select</span></th>}{(['col.created', 'col.merchant', 'col.order', 'col.status', 'col.amount', 'col.card', 'col.payer', 'col.method'] as const).map((k) => <th key={k} scope="col">{t(k)}</th>)}</tr>
                </thead>
                <tbody>
                  {payments.map((p) => (
                    <tr key={p.id}>
                      {acts && <td><input type="checkbox" aria-label={`Select ${p.order_id}`} checked={picked.some((x) => x.id === p.id)}
                        onChange={(e) => setPicked((xs) => (e.target.checked ? [...xs, p] : xs.filter((x) => x.id !== p.id)))} /></td>}
                      <td><Time iso={p.created_at} /></td>
                      <td><MerchantName id={p.merchant_id} merchants={merchants} /></td>
                      <td><Link to={`/payments/${p.id}`}>{p.order_id}</Link></td>
                      <td><StatusBadge status={p.status} />{p.needs_operator && <span className="badge badge-attention">needs operator</span>}</td>
                      <td><Money amount={p.amount} currency={p.currency} /></td>
                      <td>{p.card ?? '—'}</td>
                      <td>{p.payer_email ?? '—'}</td>
                      <td>{p.method}{p.brand ? ` (${p.brand})` : ''}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
              {cursor && <button type="button" onClick={() => void loadMore(cursor)}>{t('payments.loadMore')}</button>}
            </>
          );
        }}
      </Show>
    </>
  );
}
