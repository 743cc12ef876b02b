/**
 * Dispute monitoring (issue 29): a month's dispute and fraud-dispute ratios per merchant and MID against each
 * merchant's threshold, the platform's threshold, and a merchant's own threshold (set, or back to the platform's).
 */
import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { call } from '../api/client';
import { useCan } from '../session';
import { useModeQuery } from '../mode';
import { shortId } from './Disputes';
import { fill, useT } from '../i18n';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, Money, Show, StatusBadge, Table, errorsByField, useLoad, useSubmit } from '../ui';

const thisMonth = () => new Date().toISOString().slice(0, 7);

/** Percent and minimum count, as the threshold routes take them. */
function ThresholdForm({ label, initial, save, extra }: { label: string; initial: { ratio_percent: string; min_count: number }; save: (t: { ratio_percent: string; min_count: number }) => Promise<unknown>; extra?: ReactNode }) {
  const t = useT();
  const [percent, setPercent] = useState(initial.ratio_percent);
  const [count, setCount] = useState(String(initial.min_count));
  const { busy, error, submit } = useSubmit(() => save({ ratio_percent: percent.trim(), min_count: Number(count) }));
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form className="inline" aria-label={label} onSubmit={(e) => void submit(e)}>
        <Field label={t('disputes.ratios.percent')} path="ratio_percent">{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={percent} onChange={(e) => setPercent(e.target.value)} />}</Field>
        <Field label={t('disputes.ratios.minCount')} path="min_count">{(id, aria) => <input id={id} {...aria} inputMode="numeric" value={count} onChange={(e) => setCount(e.target.value)} />}</Field>
        <button type="submit" className="primary" disabled={busy}>{t('disputes.ratios.save')}</button>
        {extra}
      </form>
      {error && !errorsByField(error).size && <ErrorNote error={error} />}
    </FieldErrors.Provider>
  );
}

function MerchantThreshold({ merchantId, changed }: { merchantId: string; changed: () => void }) {
  const tr = useT();
  const can = useCan();
  const current = useLoad(() => call('get', '/admin/v1/merchants/{id}/dispute-threshold', { params: { id: merchantId } }), merchantId);
  return (
    <Show loaded={current} what="the merchant's threshold">
      {(t) => (
        <div className="card" aria-label={fill(tr('disputes.ratios.thresholdOf'), { id: merchantId })} role="group">
          <p>{tr('disputes.ratios.merchant')} <Link to={`/merchants/${merchantId}`}>{merchantId}</Link>{fill(tr('disputes.ratios.merchantLine'), { percent: t.ratio_percent, n: t.min_count, whose: t.source === 'merchant' ? tr('disputes.ratios.own') : fill(tr('disputes.ratios.sourceOf'), { source: t.source }) })}</p>
          {can('payments.act') && (
            <ThresholdForm key={`${t.ratio_percent}:${t.min_count}`} label={tr('disputes.ratios.merchantOwn')} initial={t}
              save={async (body) => { await call('put', '/admin/v1/merchants/{id}/dispute-threshold', { params: { id: merchantId }, body }); current.reload(); changed(); }}
              extra={t.source === 'merchant' && (
                <ConfirmButton label={tr('disputes.ratios.usePlatform')} title={tr('disputes.ratios.usePlatformTitle')}
                  action={async () => { await call('delete', '/admin/v1/merchants/{id}/dispute-threshold', { params: { id: merchantId } }); current.reload(); changed(); }} />
              )} />
          )}
        </div>
      )}
    </Show>
  );
}

export function DisputeRatios() {
  const tr = useT();
  const can = useCan();
  const [search, setSearch] = useSearchParams();
  const month = search.get('month') ?? thisMonth();
  const merchant = search.get('merchant_id') ?? '';
  const modeQuery = useModeQuery();
  const ratios = useLoad(() => call('get', '/admin/v1/disputes/ratios', { query: { month, ...modeQuery } }), `${month}|${modeQuery.mode ?? ''}`);
  const platform = useLoad(() => call('get', '/admin/v1/disputes/threshold'), 'platform');
  const reload = () => { ratios.reload(); platform.reload(); };
  return (
    <>
      <p className="crumbs"><Link to="/disputes">{tr('disputes.title')}</Link> / {tr('disputes.ratios.crumb')}</p>
      <h1>{tr('disputes.ratios.title')}</h1>
      <form className="filters" aria-label={tr('disputes.ratios.monthForm')} key={month} onSubmit={(e) => {
        e.preventDefault();
        const next = new URLSearchParams();
        for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
        setSearch(next);
      }}>
        <Field label={tr('disputes.ratios.monthUtc')}>{(id) => <input id={id} name="month" type="month" defaultValue={month} />}</Field>
        <Field label={tr('disputes.ratios.merchantThreshold')}>{(id) => <input id={id} name="merchant_id" defaultValue={merchant} />}</Field>
        <div className="actions"><button type="submit" className="primary">{tr('disputes.ratios.show')}</button></div>
      </form>
      <Show loaded={ratios} what="the ratios">
        {(r) => r.rows.length === 0 ? <Empty>{fill(tr('disputes.ratios.none'), { month: r.month })}</Empty> : (
          <Table label={fill(tr('disputes.ratios.table'), { month: r.month })}>
            <thead><tr><th scope="col">{tr('col.merchant')}</th><th scope="col">MID</th><th scope="col">{tr('disputes.ratios.colSettled')}</th><th scope="col">{tr('disputes.ratios.colDisputes')}</th><th scope="col">{tr('disputes.ratios.colRatio')}</th><th scope="col">{tr('disputes.ratios.colFraud')}</th><th scope="col">{tr('disputes.ratios.colFraudRatio')}</th><th scope="col">{tr('disputes.ratios.colThreshold')}</th><th scope="col">{tr('disputes.ratios.colOver')}</th></tr></thead>
            <tbody>{r.rows.map((x) => (
              <tr key={`${x.merchant_id}:${x.mid_id}:${x.currency}`}>
                <td><Link to={`/disputes/ratios?month=${r.month}&merchant_id=${x.merchant_id}`}>{shortId(x.merchant_id)}</Link></td>
                <td>{x.mid_id ? shortId(x.mid_id) : '—'}</td>
                <td>{x.settled_count} · <Money amount={x.settled_amount} currency={x.currency} /></td>
                <td>{x.dispute_count} · <Money amount={x.dispute_amount} currency={x.currency} /></td>
                <td>{x.dispute_ratio} %</td>
                <td>{x.fraud_count} · <Money amount={x.fraud_amount} currency={x.currency} /></td>
                <td>{x.fraud_ratio} %</td>
                <td>{x.threshold_percent} % / {x.threshold_min_count}</td>
                <td>{x.over_threshold ? <StatusBadge status="over" /> : tr('disputes.ratios.no')}</td>
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
      <section aria-labelledby="thresholds">
        <h2 id="thresholds">{tr('disputes.ratios.thresholds')}</h2>
        <p className="sub">{tr('disputes.ratios.explain')}</p>
        <Show loaded={platform} what="the platform's threshold">
          {(t) => (
            <div className="card" role="group" aria-label={tr('disputes.ratios.platformGroup')}>
              <p>{fill(tr('disputes.ratios.platformLine'), { percent: t.ratio_percent, n: t.min_count, default: t.default ? tr('disputes.ratios.isDefault') : '' })}</p>
              {can('payments.act') && <ThresholdForm key={`${t.ratio_percent}:${t.min_count}`} label={tr('disputes.ratios.platformGroup')} initial={t} save={async (body) => { await call('put', '/admin/v1/disputes/threshold', { body }); reload(); }} />}
            </div>
          )}
        </Show>
        {merchant && <MerchantThreshold key={merchant} merchantId={merchant} changed={reload} />}
      </section>
    </>
  );
}
