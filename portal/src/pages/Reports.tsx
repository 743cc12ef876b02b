/**
 * Reports (issue 30): download an export now (payments, refunds, disputes, the callback log, fees) for a shop and
 * dates; schedule a report (daily, weekly or monthly; e-mailed as a link or kept for download N days); the reports
 * made for the user's schedules, each downloadable until it expires. The e-mailed link opens this screen with the
 * report marked. What a role may not export is not offered (and the API refuses it anyway).
 */
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { buildUrl } from '../../../console/src/api/client';
import { call, type Permission } from '../api';
import { ConfirmButton, Empty, ErrorNote, Field, Show, Table, Time, useLoad, useSubmit } from '../../../console/src/ui';
import { useCan, useSession } from '../session';
import { useI18n, useT, type Key, type Translate } from '../i18n';

type Kind = 'payments' | 'refunds' | 'callbacks' | 'disputes' | 'fees';
const KINDS: { kind: Kind; label: Key; needs: Permission; path: string }[] = [
  { kind: 'payments', label: 'reports.kindPayments', needs: 'payments.export', path: '/portal/v1/payments/export' },
  { kind: 'refunds', label: 'reports.kindRefunds', needs: 'payments.export', path: '/portal/v1/refunds/export' },
  { kind: 'disputes', label: 'reports.kindDisputes', needs: 'payments.export', path: '/portal/v1/disputes/export' },
  { kind: 'callbacks', label: 'reports.kindCallbacks', needs: 'callbacks.read', path: '/portal/v1/callbacks/export' },
  { kind: 'fees', label: 'reports.kindFees', needs: 'money.read', path: '/portal/v1/fees/export' },
];
type Cadence = 'daily' | 'weekly' | 'monthly';
const CADENCES: { value: Cadence; choice: Key; word: Key }[] = [
  { value: 'daily', choice: 'reports.cadenceDaily', word: 'reports.daily' },
  { value: 'weekly', choice: 'reports.cadenceWeekly', word: 'reports.weekly' },
  { value: 'monthly', choice: 'reports.cadenceMonthly', word: 'reports.monthly' },
];
const kindName = (t: Translate, kind: string) => { const k = KINDS.find((x) => x.kind === kind); return k ? t(k.label) : kind; };
const cadenceName = (t: Translate, cadence: string) => { const c = CADENCES.find((x) => x.value === cadence); return c ? t(c.word) : cadence; };
const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);
const day = (iso: string) => iso.slice(0, 10);
const periodOf = (t: Translate, r: { cadence: string; period_from: string; period_to: string }) =>
  r.cadence === 'daily' ? day(r.period_from) : t('reports.periodRange', { from: day(r.period_from), to: day(new Date(Date.parse(r.period_to) - 86_400_000).toISOString()) });

function ShopField({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const { session } = useSession();
  const t = useT();
  if (session.merchants.length < 2) return null;
  return (
    <Field label={t('common.shop')}>{(id) => (
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t('payments.allShops')}</option>{session.merchants.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
      </select>
    )}</Field>
  );
}

function ExportNow({ kinds }: { kinds: typeof KINDS }) {
  const t = useT();
  const [kind, setKind] = useState<Kind>(kinds[0]!.kind);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [shop, setShop] = useState('');
  const path = kinds.find((k) => k.kind === kind)?.path ?? kinds[0]!.path;
  return (
    <section aria-labelledby="export-now">
      <h2 id="export-now">{t('reports.exportNow')}</h2>
      <form className="filters" aria-label={t('reports.exportNow')} onSubmit={(e) => e.preventDefault()}>
        <Field label={t('reports.exportWhat')}>{(id) => <select id={id} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>{kinds.map((k) => <option key={k.kind} value={k.kind}>{t(k.label)}</option>)}</select>}</Field>
        <ShopField value={shop} onChange={setShop} />
        <Field label={t('payments.createdFrom')}>{(id) => <input id={id} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />}</Field>
        <Field label={t('payments.createdBefore')}>{(id) => <input id={id} type="date" value={to} onChange={(e) => setTo(e.target.value)} />}</Field>
        <div className="actions">
          <a className="button" href={buildUrl(path, undefined, { merchant_id: shop, created_from: from, created_to: to })} download>{t('payments.csv')}</a>
          <a className="button" href={buildUrl(path, undefined, { merchant_id: shop, created_from: from, created_to: to, format: 'xlsx' })} download>{t('reports.xlsx')}</a>
        </div>
      </form>
    </section>
  );
}

function Schedule({ kinds, done }: { kinds: typeof KINDS; done: () => void }) {
  const t = useT();
  const [kind, setKind] = useState<Kind>(kinds[0]!.kind);
  const [cadence, setCadence] = useState<Cadence>('daily');
  const [delivery, setDelivery] = useState<'email' | 'download'>('email');
  const [keepDays, setKeepDays] = useState('30');
  const [shop, setShop] = useState('');
  const [view, setView] = useState('');
  const [saved, setSaved] = useState(false);
  const views = useLoad(() => call('get', '/portal/v1/saved-views'), 'views');
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    await call('post', '/portal/v1/report-subscriptions', {
      body: { kind, cadence, delivery, keep_days: Number(keepDays), ...(shop ? { merchant_id: shop } : {}), ...(kind === 'payments' && view ? { saved_view_id: view } : {}) },
    });
    setSaved(true);
    done();
  });
  return (
    <form className="filters" aria-label={t('reports.schedule')} onSubmit={(e) => void submit(e)}>
      <Field label={t('reports.report')}>{(id) => <select id={id} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>{kinds.map((k) => <option key={k.kind} value={k.kind}>{t(k.label)}</option>)}</select>}</Field>
      <Field label={t('reports.every')}>{(id) => <select id={id} value={cadence} onChange={(e) => setCadence(e.target.value as Cadence)}>{CADENCES.map((c) => <option key={c.value} value={c.value}>{t(c.choice)}</option>)}</select>}</Field>
      <Field label={t('reports.delivery')}>{(id) => (
        <select id={id} value={delivery} onChange={(e) => setDelivery(e.target.value as typeof delivery)}>
          <option value="email">{t('reports.deliveryEmail')}</option><option value="download">{t('reports.deliveryDownload')}</option>
        </select>
      )}</Field>
      <Field label={t('reports.keepDays')}>{(id) => <input id={id} type="number" min={1} max={90} required value={keepDays} onChange={(e) => setKeepDays(e.target.value)} />}</Field>
      <ShopField value={shop} onChange={setShop} />
      {kind === 'payments' && (
        <Field label={t('reports.savedView')}>{(id) => (
          <select id={id} value={view} onChange={(e) => setView(e.target.value)}>
            <option value="">{t('reports.allPayments')}</option>
            {views.data?.views.map((v) => <option key={v.id} value={v.id}>{v.name}</option>)}
          </select>
        )}</Field>
      )}
      {error && <ErrorNote error={error} />}
      {saved && !error && <p role="status">{t('reports.scheduledOk')}</p>}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('reports.scheduleButton')}</button></div>
    </form>
  );
}

export function Reports() {
  const { t } = useI18n();
  const can = useCan();
  const { session } = useSession();
  const [search] = useSearchParams();
  const marked = search.get('report');
  const kinds = KINDS.filter((k) => can(k.needs));
  const subscriptions = useLoad(() => call('get', '/portal/v1/report-subscriptions'), 'subscriptions');
  const reports = useLoad(() => call('get', '/portal/v1/reports'), 'reports');
  const shopName = (id: string | null) => (id ? session.merchants.find((m) => m.id === id)?.name ?? id : t('payments.allShops'));
  const named = (r: { kind: string; cadence: string }) => t('reports.kindCadence', { kind: kindName(t, r.kind), cadence: cadenceName(t, r.cadence) });
  return (
    <>
      <h1>{t('reports.title')}</h1>
      {kinds.length > 0 && <ExportNow kinds={kinds} />}
      <section aria-labelledby="ready">
        <h2 id="ready">{t('reports.ready')}</h2>
        <Show loaded={reports} what={t('reports.what')}>{({ reports: list }) => list.length === 0 ? <Empty>{t('reports.noneReady')}</Empty> : (
          <Table label={t('reports.readyTable')}>
            <thead><tr><th scope="col">{t('reports.report')}</th><th scope="col">{t('reports.period')}</th><th scope="col">{t('reports.lines')}</th><th scope="col">{t('reports.size')}</th><th scope="col">{t('reports.keptUntil')}</th><th scope="col">{t('reports.download')}</th></tr></thead>
            <tbody>{list.map((r) => (
              <tr key={r.id} aria-current={r.id === marked ? 'true' : undefined}>
                <td>{named(r)}{r.id === marked ? ` ${t('reports.fromMail')}` : ''}</td>
                <td>{periodOf(t, r)}</td>
                <td>{r.lines}</td>
                <td>{size(r.bytes)}</td>
                <td><Time iso={r.expires_at} /></td>
                <td><a href={buildUrl('/portal/v1/reports/{id}/download', { id: r.id })} download>{t('payments.csv')}<span className="sr-only"> ({named(r)}, {periodOf(t, r)})</span></a>{' '}
                  <a href={buildUrl('/portal/v1/reports/{id}/download', { id: r.id }, { format: 'xlsx' })} download>{t('reports.xlsx')}<span className="sr-only"> ({named(r)}, {periodOf(t, r)})</span></a></td>
              </tr>
            ))}</tbody>
          </Table>
        )}</Show>
      </section>
      <section aria-labelledby="scheduled">
        <h2 id="scheduled">{t('reports.scheduled')}</h2>
        <Show loaded={subscriptions} what={t('reports.scheduled')}>{({ subscriptions: list }) => list.length === 0 ? <Empty>{t('reports.noneScheduled')}</Empty> : (
          <Table label={t('reports.scheduledTable')}>
            <thead><tr><th scope="col">{t('reports.report')}</th><th scope="col">{t('reports.every')}</th><th scope="col">{t('reports.delivery')}</th><th scope="col">{t('common.shop')}</th><th scope="col">{t('reports.nextEnd')}</th><th scope="col">{t('reports.actions')}</th></tr></thead>
            <tbody>{list.map((s) => (
              <tr key={s.id}>
                <td>{kindName(t, s.kind)}{Object.keys(s.query).length > 0 ? ` (${Object.entries(s.query).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}</td>
                <td>{cadenceName(t, s.cadence)}</td>
                <td>{t(s.delivery === 'email' ? 'reports.emailedKept' : 'reports.downloadKept', { days: s.keep_days })}</td>
                <td>{shopName(s.merchant_id)}</td>
                <td><Time iso={s.next_period_to} /></td>
                <td><ConfirmButton label={t('reports.delete', { report: named(s) })} title={t('reports.deleteTitle')} confirmLabel={t('reports.deleteConfirm')} danger
                  action={async () => { await call('delete', '/portal/v1/report-subscriptions/{id}', { params: { id: s.id } }); subscriptions.reload(); reports.reload(); }} /></td>
              </tr>
            ))}</tbody>
          </Table>
        )}</Show>
        {kinds.length > 0 && <><h3>{t('reports.schedule')}</h3><Schedule kinds={kinds} done={subscriptions.reload} /></>}
      </section>
    </>
  );
}
