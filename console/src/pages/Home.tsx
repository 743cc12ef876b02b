/**
 * The home: payment figures of a date range beside the period before it (GET /admin/v1/stats/figures, issue 31
 * item 5), as headline tiles and charts, per merchant, MID or connector; today's figures per merchant with failing
 * callbacks; then the other screens' widgets (homeWidgets.tsx). The range lives in the URL, so a view can be shared.
 */
import { Link, useSearchParams } from 'react-router';
import { call, type Answer } from '../api/client';
import { startOfLocalDay, timeZone, formatMoney } from '../format';
import { Empty, Money, Show, Table, useLoad } from '../ui';
import { useSession } from '../session';
import { CompareBars, DailyChart, Tile } from '../charts';
import { HOME_WIDGETS } from './homeWidgets';
import { fill, useT, type Key } from '../i18n';
import { useModeQuery } from '../mode';

type Figures = Answer<'/admin/v1/stats/figures', 'get'>;
type Totals = Figures['totals']['current'];
type Grouping = 'merchant' | 'mid' | 'connector';

const GROUPINGS: { value: Grouping; label: Key }[] = [
  { value: 'merchant', label: 'home.byMerchant' }, { value: 'mid', label: 'home.byMid' }, { value: 'connector', label: 'home.byConnector' },
];
const PRESETS = [7, 30, 90];

const utcDay = (d: Date) => d.toISOString().slice(0, 10);
const daysBefore = (day: string, n: number) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000));
const percent = (rate: number | null | undefined) => (rate === null || rate === undefined ? '—' : `${(rate * 100).toFixed(1)} %`);

function changeOf(current: number, previous: number, newText: string): string | undefined {
  if (previous === 0) return current === 0 ? undefined : newText;
  const pct = ((current - previous) / previous) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)} %`;
}

/** The approved amount of `currency` among totals, as a decimal string ("0" when none). */
function volumeOf(t: Totals, currency: string): string {
  return t.volume.find((v) => v.currency === currency)?.amount ?? '0';
}

export function Home() {
  const t = useT();
  const { session } = useSession();
  const [params, setParams] = useSearchParams();
  const today = utcDay(new Date());
  const to = params.get('to') ?? today;
  const from = params.get('from') ?? daysBefore(to, 29);
  const by = (params.get('by') ?? 'merchant') as Grouping;
  const currencyParam = params.get('currency');
  const modeQuery = useModeQuery();
  const figures = useLoad(() => call('get', '/admin/v1/stats/figures', { query: { from, to, by, ...modeQuery } }), `${from}|${to}|${by}|${modeQuery.mode ?? ''}`);
  const set = (changes: Record<string, string>) => setParams((p) => {
    const next = new URLSearchParams(p);
    for (const [k, v] of Object.entries(changes)) next.set(k, v);
    return next;
  }, { replace: true });
  const can = (p: string) => session.permissions.includes(p as never);
  return (
    <>
      <h1>{t('nav.home')}</h1>
      <form className="filters" aria-label={t('home.range')} onSubmit={(e) => e.preventDefault()}>
        <div className="field"><label htmlFor="home-from">{t('home.from')}</label>
          <input id="home-from" type="date" value={from} max={to} onChange={(e) => e.target.value && set({ from: e.target.value })} /></div>
        <div className="field"><label htmlFor="home-to">{t('home.to')}</label>
          <input id="home-to" type="date" value={to} min={from} onChange={(e) => e.target.value && set({ to: e.target.value })} /></div>
        <div className="field"><label htmlFor="home-by">{t('home.splitBy')}</label>
          <select id="home-by" value={by} onChange={(e) => set({ by: e.target.value })}>
            {GROUPINGS.map((g) => <option key={g.value} value={g.value}>{t(g.label)}</option>)}
          </select></div>
        <div className="actions range-presets">
          {PRESETS.map((n) => <button type="button" key={n} onClick={() => set({ from: daysBefore(today, n - 1), to: today })}>{fill(t('home.lastDays'), { n })}</button>)}
        </div>
      </form>
      <Show loaded={figures} what="the figures">
        {(f) => <FiguresView f={f} by={by} currency={currencyParam} onCurrency={(c) => set({ currency: c })} />}
      </Show>
      <Today />
      {HOME_WIDGETS.filter((w) => can(w.needs)).map(({ id, Widget }) => <section key={id} aria-label={id}><Widget /></section>)}
    </>
  );
}

function FiguresView({ f, by, currency: asked, onCurrency }: { f: Figures; by: Grouping; currency: string | null; onCurrency(c: string): void }) {
  const t = useT();
  const change = (current: number, previous: number) => changeOf(current, previous, t('home.new'));
  const summary = (current: string, previous: string) => fill(t('home.summary'), { current, previous });
  const currencies = [...new Set([...f.totals.current.volume, ...f.totals.previous.volume].map((v) => v.currency))];
  const currency = asked && currencies.includes(asked) ? asked : currencies[0];
  const labels = f.daily.map((d) => d.day);
  const previousLabels = f.daily.map((d) => d.previous_day);
  const period = fill(t('home.period'), { from: f.from, to: f.to, previousFrom: f.previous_from, previousTo: f.previous_to });
  const { current: cur, previous: prev } = f.totals;
  const grouping = GROUPINGS.find((g) => g.value === by);
  const groupLabel = grouping ? t(grouping.label) : by;
  return (
    <section aria-label={t('home.figures')}>
      <p className="sub">{period}. {t('home.counting')}</p>
      <dl className="tiles">
        <Tile label={t('home.payments')} current={String(cur.payments)} previous={String(prev.payments)} change={change(cur.payments, prev.payments)} />
        <Tile label={t('home.approvalRate')} current={percent(cur.approval_rate)} previous={percent(prev.approval_rate)} />
        <Tile label={t('home.declined')} current={String(cur.declined)} previous={String(prev.declined)} change={change(cur.declined, prev.declined)} />
        {currencies.map((c) => (
          <Tile key={c} label={fill(t('home.volume'), { currency: c })} current={formatMoney(volumeOf(cur, c), c)} previous={formatMoney(volumeOf(prev, c), c)}
            change={change(Number(volumeOf(cur, c)), Number(volumeOf(prev, c)))} />
        ))}
      </dl>
      {cur.payments + prev.payments === 0 ? <Empty>{t('home.noPayments')}</Empty> : (
        <>
          {currencies.length > 1 && (
            <div className="field" style={{ maxWidth: 240 }}><label htmlFor="home-currency">{t('home.chartCurrency')}</label>
              <select id="home-currency" value={currency} onChange={(e) => onCurrency(e.target.value)}>
                {currencies.map((c) => <option key={c}>{c}</option>)}
              </select></div>
          )}
          <div className="charts">
            <DailyChart title={t('home.paymentsPerDay')} summary={summary(String(cur.payments), String(prev.payments))} format={(n) => String(n)}
              series={{ labels, current: f.daily.map((d) => d.current.payments), previous: f.daily.map((d) => d.previous.payments) }} previousLabels={previousLabels} />
            {currency && (
              <DailyChart title={fill(t('home.volumePerDay'), { currency })} summary={summary(formatMoney(volumeOf(cur, currency), currency), formatMoney(volumeOf(prev, currency), currency))}
                format={(n) => formatMoney(String(n), currency)}
                series={{ labels, current: f.daily.map((d) => Number(volumeOf(d.current, currency))), previous: f.daily.map((d) => Number(volumeOf(d.previous, currency))) }} previousLabels={previousLabels} />
            )}
            <DailyChart title={t('home.ratePerDay')} summary={summary(percent(cur.approval_rate), percent(prev.approval_rate))} format={(n) => `${n.toFixed(1)} %`}
              series={{ labels, current: f.daily.map((d) => (d.current.approval_rate ?? 0) * 100), previous: f.daily.map((d) => (d.previous.approval_rate ?? 0) * 100) }} previousLabels={previousLabels} />
            <CompareBars title={t('home.declinesByReason')} empty={t('home.noDeclines')} rows={f.declines.map((d) => ({ label: d.reason, current: d.current, previous: d.previous }))} />
          </div>
          <h2>{fill(t('home.per'), { group: groupLabel })}</h2>
          <Table label={fill(t('home.figuresPer'), { group: groupLabel })}>
            <thead><tr><th scope="col">{groupLabel}</th><th scope="col">{t('home.payments')}</th><th scope="col">{t('home.approvalRate')}</th><th scope="col">{t('home.approvedVolume')}</th></tr></thead>
            <tbody>
              {f.groups.map((g) => (
                <tr key={g.key}>
                  <th scope="row">{by === 'merchant' && g.key ? <Link to={`/merchants/${encodeURIComponent(g.key)}`}>{g.name}</Link> : g.name}</th>
                  <td>{g.current.payments} <small>{fill(t('home.previous'), { value: g.previous.payments })}</small></td>
                  <td>{percent(g.current.approval_rate)} <small>{fill(t('home.previous'), { value: percent(g.previous.approval_rate) })}</small></td>
                  <td>{g.current.volume.length === 0 ? '—' : g.current.volume.map((v) => <div key={v.currency}><Money amount={v.amount} currency={v.currency} /></div>)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        </>
      )}
    </section>
  );
}

/** Today's figures per merchant since the operator's own midnight, with the callbacks failing. */
function Today() {
  const t = useT();
  const since = startOfLocalDay().toISOString();
  const modeQuery = useModeQuery();
  const stats = useLoad(() => call('get', '/admin/v1/stats', { query: { since, ...modeQuery } }), `${since}|${modeQuery.mode ?? ''}`);
  return (
    <section aria-labelledby="home-today">
      <h2 id="home-today">{t('home.today')}</h2>
      <p className="sub">{fill(t('home.sinceMidnight'), { zone: timeZone() })}</p>
      <Show loaded={stats} what="today's figures">
        {(s) => s.merchants.length === 0 ? <Empty>{t('home.todayNone')}</Empty> : (
          <Table label={t('home.todayTable')}>
            <thead>
              <tr><th scope="col">{t('col.merchant')}</th><th scope="col">{t('home.payments')}</th><th scope="col">{t('home.approvalRate')}</th><th scope="col">{t('home.approvedVolume')}</th><th scope="col">{t('home.callbacksFailing')}</th></tr>
            </thead>
            <tbody>
              {s.merchants.map((m) => (
                <tr key={m.merchant_id}>
                  <th scope="row"><Link to={`/payments?merchant_id=${encodeURIComponent(m.merchant_id)}&created_from=${encodeURIComponent(since)}`}>{m.merchant_name}</Link></th>
                  <td>{m.payments}</td>
                  <td>{percent(m.approval_rate)} <small>{fill(t('home.approvedDeclined'), { approved: m.approved, declined: m.declined })}</small></td>
                  <td>{m.volume.length === 0 ? '—' : m.volume.map((v) => <div key={v.currency}><Money amount={v.amount} currency={v.currency} /></div>)}</td>
                  <td>{m.callbacks_failing > 0
                    ? <Link className="warn" to={`/callbacks?merchant_id=${encodeURIComponent(m.merchant_id)}&status=failed`}>{m.callbacks_failing}</Link>
                    : 0}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Show>
    </section>
  );
}
