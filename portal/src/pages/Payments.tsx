/**
 * The merchant's payments: search and filters (kept in the URL, so a search is a link), the user's saved views (a
 * named search, applied by its link), pages behind a cursor, and the CSV export the API streams (the same filters,
 * so a saved view downloads as it shows; formulas neutralised by the gateway).
 */
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { buildUrl } from '../../../console/src/api/client';
import { call, type Payment, type PaymentQuery } from '../api';
import { queryParamsOf } from '../../../console/src/queryParams';
import { ConfirmButton, Empty, ErrorNote, Field, Money, Show, StatusBadge, Table, Time, useLoad, useSubmit } from '../../../console/src/ui';
import { useCan, useSession } from '../session';
import { useT, type Key } from '../i18n';
import { codeName } from '../codes';

const FILTERS: { name: keyof PaymentQuery; label: Key; type?: string; placeholder?: string }[] = [
  { name: 'order_id', label: 'payments.orderId' },
  { name: 'status', label: 'payments.status' },
  { name: 'created_from', label: 'payments.createdFrom', type: 'date' },
  { name: 'created_to', label: 'payments.createdBefore', type: 'date' },
  { name: 'card_last4', label: 'payments.cardLast4', placeholder: '1111' },
  { name: 'email', label: 'payments.email', type: 'search' },
  { name: 'payment_id', label: 'payments.paymentId' },
  { name: 'trans_id', label: 'payments.transId' },
  { name: 'currency', label: 'payments.currency', placeholder: 'EUR' },
  { name: 'amount_from', label: 'payments.amountFrom', placeholder: '10.00' },
  { name: 'amount_to', label: 'payments.amountTo', placeholder: '500.00' },
  { name: 'method', label: 'payments.method', placeholder: 'card' },
];
const MAIN_FILTERS = 4;
const PARAMS = queryParamsOf('/portal/v1/payments');
// Checkout's lower-case names only (the API also takes the S2S upper-case ones).
const optionsOf = (name: string) => PARAMS.find((p) => p.name === name)?.values?.filter((v) => name !== 'status' || v === v.toLowerCase());

function queryOf(search: URLSearchParams): PaymentQuery {
  const q: Record<string, string> = {};
  for (const [k, v] of search) if (v && FILTERS.some((f) => f.name === k) || (k === 'merchant_id' && v)) q[k] = v;
  return q as PaymentQuery;
}

/** The refunds' and disputes' exports take the search's shop and creation window. */
const windowOf = (q: PaymentQuery) => Object.fromEntries(Object.entries(q).filter(([k]) => k === 'merchant_id' || k === 'created_from' || k === 'created_to'));

export function Payments() {
  const t = useT();
  const [search, setSearch] = useSearchParams();
  const { session } = useSession();
  const can = useCan();
  const query = queryOf(search);
  const key = JSON.stringify(query);
  const [more, setMore] = useState<{ key: string; payments: Payment[]; cursor: string | null }>();
  const first = useLoad(() => call('get', '/portal/v1/payments', { query: { ...query, limit: '50' } }), key);
  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
    setSearch(next);
  };
  const loadMore = async (cursor: string) => {
    const page = await call('get', '/portal/v1/payments', { query: { ...query, limit: '50', cursor } });
    setMore((m) => ({ key, payments: [...(m?.key === key ? m.payments : []), ...page.payments], cursor: page.next_cursor }));
  };
  const extra = more?.key === key ? more : undefined;
  const filterField = (f: (typeof FILTERS)[number]) => {
    const options = optionsOf(f.name);
    const value = search.get(f.name) ?? '';
    return (
      <Field key={f.name} label={t(f.label)}>
        {(id) => options
          ? <select id={id} name={f.name} defaultValue={value}><option value="">{t('payments.any')}</option>{options.map((o) => <option key={o} value={o}>{f.name === 'status' ? codeName(t, o) : o}</option>)}</select>
          : <input id={id} name={f.name} type={f.type ?? 'text'} defaultValue={value} placeholder={f.placeholder} />}
      </Field>
    );
  };
  const several = session.merchants.length > 1;
  return (
    <>
      <h1>{t('nav.payments')}</h1>
      <SavedViews query={query} />
      <form className="filters" onSubmit={apply} aria-label={t('payments.filter')} key={key}>
        {several && (
          <Field label={t('common.shop')}>{(id) => (
            <select id={id} name="merchant_id" defaultValue={search.get('merchant_id') ?? ''}>
              <option value="">{t('payments.allShops')}</option>{session.merchants.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
            </select>
          )}</Field>
        )}
        {FILTERS.slice(0, MAIN_FILTERS).map(filterField)}
        <details className="more-filters" open={FILTERS.slice(MAIN_FILTERS).some((f) => search.get(f.name))}>
          <summary>{t('payments.more')}</summary>
          <div className="grid">{FILTERS.slice(MAIN_FILTERS).map(filterField)}</div>
        </details>
        <div className="actions">
          <button type="submit" className="primary">{t('payments.search')}</button>
          <button type="button" onClick={() => setSearch(new URLSearchParams())}>{t('payments.clear')}</button>
          {can('payments.export') && <a className="button" href={buildUrl('/portal/v1/payments/export', undefined, query)} download>{t('payments.csv')}</a>}
          {can('payments.export') && <a className="button" href={buildUrl('/portal/v1/refunds/export', undefined, windowOf(query))} download>{t('payments.refundsCsv')}</a>}
          {can('payments.export') && <a className="button" href={buildUrl('/portal/v1/disputes/export', undefined, windowOf(query))} download>{t('payments.disputesCsv')}</a>}
        </div>
      </form>
      <Show loaded={first} what={t('payments.what')}>
        {(page) => {
          const payments = [...page.payments, ...(extra?.payments ?? [])];
          const cursor = extra ? extra.cursor : page.next_cursor;
          if (payments.length === 0) return <Empty>{t('payments.none')}</Empty>;
          return (
            <>
              <Table label={t('payments.found')}>
                <thead>
                  <tr><th scope="col">{t('col.created')}</th><th scope="col">{t('col.order')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('col.amount')}</th><th scope="col">{t('col.refunded')}</th><th scope="col">{t('col.card')}</th><th scope="col">{t('col.payer')}</th>{several && <th scope="col">{t('common.shop')}</th>}</tr>
                </thead>
                <tbody>
                  {payments.map((p) => (
                    <tr key={p.id}>
                      <td><Time iso={p.created_at} /></td>
                      <td><Link to={`/payments/${p.id}`}>{p.order_id}</Link></td>
                      <td><StatusBadge status={p.status} label={codeName(t, p.status)} /></td>
                      <td><Money amount={p.amount} currency={p.currency} /></td>
                      <td><Money amount={p.refunded_amount} currency={p.currency} /></td>
                      <td>{p.card ?? p.method}</td>
                      <td>{p.payer_email ?? '—'}</td>
                      {several && <td>{session.merchants.find((m) => m.id === p.merchant_id)?.name ?? p.merchant_id}</td>}
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

/** The user's saved views: each a link applying its filters, deleted from its row; the search shown saved by name. */
function SavedViews({ query }: { query: PaymentQuery }) {
  const t = useT();
  const views = useLoad(() => call('get', '/portal/v1/saved-views'), 'views');
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<string>();
  const save = useSubmit(async () => {
    const view = await call('post', '/portal/v1/saved-views', { body: { name, query } });
    setSaved(view.name);
    setName('');
    views.reload();
  });
  const hasFilters = Object.keys(query).length > 0;
  return (
    <section aria-labelledby="views-heading" className="saved-views">
      <h2 id="views-heading">{t('views.title')}</h2>
      <Show loaded={views} what={t('views.what')}>{({ views: list }) => list.length === 0
        ? <p className="sub">{t('views.none')}</p>
        : (
          <ul className="view-list">
            {list.map((v) => (
              <li key={v.id}>
                <Link to={`/payments?${new URLSearchParams(v.query as Record<string, string>)}`}>{v.name}</Link>{' '}
                <ConfirmButton label={t('views.delete', { name: v.name })} title={t('views.deleteTitle', { name: v.name })} confirmLabel={t('views.deleteConfirm')} danger
                  action={async () => { await call('delete', '/portal/v1/saved-views/{id}', { params: { id: v.id } }); views.reload(); }} />
              </li>
            ))}
          </ul>
        )}</Show>
      {hasFilters && (
        <form className="filters" aria-label={t('views.save')} onSubmit={(e) => void save.submit(e)}>
          <Field label={t('views.saveAs')}>{(id) => <input id={id} required maxLength={80} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
          <button type="submit" disabled={save.busy}>{t('views.saveButton')}</button>
          {save.error && <ErrorNote error={save.error} />}
          {saved && !save.error && <p role="status">{t('views.saved', { name: saved })}</p>}
        </form>
      )}
    </section>
  );
}
