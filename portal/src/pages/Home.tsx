/**
 * Home: the merchant's volume, payments, approval rate and declines by reason over a date range, beside the period
 * before it (GET /portal/v1/figures: the console's aggregation over the user's merchants), with the console's charts.
 * Every number, amount and day in the user's language (Intl).
 */
import { useSearchParams } from 'react-router';
import { call, type Figures, type MerchantMoney, type Statement } from '../api';
import { formatMoney } from '../../../console/src/format';
import { Empty, Money, Show, Table, Time, useLoad } from '../../../console/src/ui';
import { useCan, useSession } from '../session';
import { CompareBars, DailyChart, Tile } from '../../../console/src/charts';
import { useI18n, type I18n } from '../i18n';

type Totals = Figures['totals']['current'];
const PRESETS = [7, 30, 90];
const utcDay = (d: Date) => d.toISOString().slice(0, 10);
const daysBefore = (day: string, n: number) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000));
const percentOf = (i18n: I18n, rate: number | null | undefined) => (rate === null || rate === undefined ? '—' : i18n.percent(rate));
const volumeOf = (t: Totals, currency: string) => t.volume.find((v) => v.currency === currency)?.amount ?? '0';

function change(i18n: I18n, current: number, previous: number): string | undefined {
  if (previous === 0) return current === 0 ? undefined : i18n.t('home.new');
  const ratio = (current - previous) / previous;
  return `${ratio >= 0 ? '+' : ''}${i18n.percent(ratio)}`;
}

export function Home() {
  const can = useCan();
  const { t } = useI18n();
  const [params, setParams] = useSearchParams();
  const today = utcDay(new Date());
  const to = params.get('to') ?? today;
  const from = params.get('from') ?? daysBefore(to, 29);
  const figures = useLoad(() => call('get', '/portal/v1/figures', { query: { from, to } }), `${from}|${to}`);
  const set = (changes: Record<string, string>) => setParams((p) => {
    const next = new URLSearchParams(p);
    for (const [k, v] of Object.entries(changes)) next.set(k, v);
    return next;
  }, { replace: true });
  return (
    <>
      <h1>{t('nav.home')}</h1>
      <form className="filters" aria-label={t('home.range')} onSubmit={(e) => e.preventDefault()}>
        <div className="field"><label htmlFor="home-from">{t('home.from')}</label>
          <input id="home-from" type="date" value={from} max={to} onChange={(e) => e.target.value && set({ from: e.target.value })} /></div>
        <div className="field"><label htmlFor="home-to">{t('home.to')}</label>
          <input id="home-to" type="date" value={to} min={from} onChange={(e) => e.target.value && set({ to: e.target.value })} /></div>
        <div className="actions range-presets">
          {PRESETS.map((n) => <button type="button" key={n} onClick={() => set({ from: daysBefore(today, n - 1), to: today })}>{t('home.lastDays', { count: n })}</button>)}
        </div>
      </form>
      <Show loaded={figures} what={t('home.figuresWhat')}>{(f) => <FiguresView f={f} />}</Show>
      {can('money.read') && <MoneySection />}
    </>
  );
}

/** Balance and next payout (GET /portal/v1/money), and the latest statements with their CSV (finance and owners). */
function MoneySection() {
  const { t } = useI18n();
  const money = useLoad(() => Promise.all([call('get', '/portal/v1/money'), call('get', '/portal/v1/statements', { query: { limit: 5 } })]), 'money');
  const { session } = useSession();
  const nameOf = (id: string) => session.merchants.find((m) => m.id === id)?.name ?? id;
  return (
    <section aria-labelledby="money-heading">
      <h2 id="money-heading">{t('money.title')}</h2>
      <Show loaded={money} what={t('money.what')}>{([m, s]) => (
        <>
          {m.merchants.map((x) => <MerchantMoneyView key={x.merchant_id} m={x} name={m.merchants.length > 1 ? nameOf(x.merchant_id) : undefined} />)}
          <StatementsTable statements={s.statements} nameOf={m.merchants.length > 1 ? nameOf : undefined} />
        </>
      )}</Show>
    </section>
  );
}

function MerchantMoneyView({ m, name }: { m: MerchantMoney; name: string | undefined }) {
  const { t, plural, rich } = useI18n();
  const payout = (currency: string) => m.payouts.find((p) => p.currency === currency);
  const frequency = { daily: t('money.daily'), weekly: t('money.weekly'), monthly: t('money.monthly') }[m.settlement.frequency as string] ?? m.settlement.frequency;
  return (
    <div className="money-merchant">
      {name && <h3>{name}</h3>}
      {m.balances.length === 0 ? <Empty>{t('money.none')}</Empty> : (
        <Table label={name ? t('money.balancesOf', { name }) : t('money.balances')}>
          <thead><tr><th scope="col">{t('money.currency')}</th><th scope="col">{t('money.available')}</th><th scope="col">{t('money.pending')}</th><th scope="col">{t('money.reserve')}</th><th scope="col">{t('money.fees')}</th><th scope="col">{t('money.nextPayout')}</th></tr></thead>
          <tbody>{m.balances.map((b) => {
            const p = payout(b.currency);
            return (
              <tr key={b.currency}>
                <th scope="row">{b.currency}</th><td><Money amount={b.available} currency={b.currency} /></td><td><Money amount={b.pending} currency={b.currency} /></td>
                <td><Money amount={b.reserve} currency={b.currency} /></td><td><Money amount={b.fees} currency={b.currency} /></td>
                <td>{p && p.awaiting_statements > 0 ? <><Money amount={p.awaiting_payout} currency={b.currency} /> <small>({plural(p.awaiting_statements, 'money.awaitingOne', 'money.awaitingOther')})</small></> : t('money.nothingAwaiting')}</td>
              </tr>
            );
          })}</tbody>
        </Table>
      )}
      <p className="sub">{rich('money.settlement', {
        frequency, delay: plural(m.settlement.delay_days, 'money.dayOne', 'money.dayOther'),
        before: <Time iso={m.settlement.next_period_to} />, from: <Time iso={m.settlement.next_statement_at} />,
      })}</p>
    </div>
  );
}

function StatementsTable({ statements, nameOf }: { statements: Statement[]; nameOf: ((id: string) => string) | undefined }) {
  const { t } = useI18n();
  if (statements.length === 0) return <Empty>{t('money.noStatements')}</Empty>;
  return (
    <Table label={t('money.statements')}>
      <thead><tr>{nameOf && <th scope="col">{t('common.shop')}</th>}<th scope="col">{t('money.period')}</th><th scope="col">{t('money.gross')}</th><th scope="col">{t('money.feesShort')}</th><th scope="col">{t('money.reserveHeld')}</th><th scope="col">{t('money.net')}</th><th scope="col">{t('money.paid')}</th><th scope="col">CSV</th></tr></thead>
      <tbody>{statements.map((s) => (
        <tr key={s.id}>
          {nameOf && <td>{nameOf(s.merchant_id)}</td>}
          <th scope="row"><Time iso={s.period_from} /> – <Time iso={s.period_to} /></th>
          <td><Money amount={s.gross} currency={s.currency} /></td><td><Money amount={s.fees} currency={s.currency} /></td>
          <td><Money amount={s.reserve_held} currency={s.currency} /></td><td><Money amount={s.net_payable} currency={s.currency} /></td>
          <td>{s.payout ? <><Time iso={s.payout.paid_at} /> <small>{s.payout.bank_reference}</small></> : t('money.notYet')}</td>
          <td><a href={`/portal/v1/statements/${encodeURIComponent(s.id)}/csv`} download>{t('money.download')}<span className="sr-only"> {t('money.downloadWhat')} <Time iso={s.period_to} /></span></a></td>
        </tr>
      ))}</tbody>
    </Table>
  );
}

function FiguresView({ f }: { f: Figures }) {
  const i18n = useI18n();
  const { t, locale } = i18n;
  const currencies = [...new Set([...f.totals.current.volume, ...f.totals.previous.volume].map((v) => v.currency))];
  const labels = f.daily.map((d) => i18n.day(d.day));
  const previousLabels = f.daily.map((d) => i18n.day(d.previous_day));
  const { current: cur, previous: prev } = f.totals;
  const count = (n: number) => i18n.number(n);
  const money = (amount: string, c: string) => formatMoney(amount, c, locale);
  const summary = (current: string, previous: string) => t('home.summary', { current, previous });
  return (
    <section aria-label={t('home.figures')}>
      <p className="sub">{t('home.period', { from: i18n.day(f.from), to: i18n.day(f.to), previousFrom: i18n.day(f.previous_from), previousTo: i18n.day(f.previous_to) })}</p>
      <dl className="tiles">
        <Tile label={t('home.payments')} current={count(cur.payments)} previous={count(prev.payments)} change={change(i18n, cur.payments, prev.payments)} />
        <Tile label={t('home.approvalRate')} current={percentOf(i18n, cur.approval_rate)} previous={percentOf(i18n, prev.approval_rate)} />
        <Tile label={t('home.declined')} current={count(cur.declined)} previous={count(prev.declined)} change={change(i18n, cur.declined, prev.declined)} />
        {currencies.map((c) => (
          <Tile key={c} label={t('home.volume', { currency: c })} current={money(volumeOf(cur, c), c)} previous={money(volumeOf(prev, c), c)} />
        ))}
      </dl>
      {cur.payments + prev.payments === 0 ? <Empty>{t('home.noPayments')}</Empty> : (
        <>
          <div className="charts">
            <DailyChart title={t('home.paymentsPerDay')} summary={summary(count(cur.payments), count(prev.payments))} format={count}
              series={{ labels, current: f.daily.map((d) => d.current.payments), previous: f.daily.map((d) => d.previous.payments) }} previousLabels={previousLabels} />
            {currencies.slice(0, 1).map((c) => (
              <DailyChart key={c} title={t('home.volumePerDay', { currency: c })} summary={summary(money(volumeOf(cur, c), c), money(volumeOf(prev, c), c))}
                format={(n) => money(String(n), c)}
                series={{ labels, current: f.daily.map((d) => Number(volumeOf(d.current, c))), previous: f.daily.map((d) => Number(volumeOf(d.previous, c))) }} previousLabels={previousLabels} />
            ))}
            <DailyChart title={t('home.ratePerDay')} summary={summary(percentOf(i18n, cur.approval_rate), percentOf(i18n, prev.approval_rate))} format={(n) => i18n.percent(n / 100)}
              series={{ labels, current: f.daily.map((d) => (d.current.approval_rate ?? 0) * 100), previous: f.daily.map((d) => (d.previous.approval_rate ?? 0) * 100) }} previousLabels={previousLabels} />
            <CompareBars title={t('home.declinesByReason')} empty={t('home.noDeclines')} format={count} rows={f.declines.map((d) => ({ label: d.reason, current: d.current, previous: d.previous }))} />
          </div>
          {f.groups.length > 1 && (
            <Table label={t('home.perShop')}>
              <thead><tr><th scope="col">{t('common.shop')}</th><th scope="col">{t('home.payments')}</th><th scope="col">{t('home.approvalRate')}</th><th scope="col">{t('home.approvedVolume')}</th></tr></thead>
              <tbody>{f.groups.map((g) => (
                <tr key={g.key}><th scope="row">{g.name}</th><td>{count(g.current.payments)}</td><td>{percentOf(i18n, g.current.approval_rate)}</td>
                  <td>{g.current.volume.map((v) => <div key={v.currency}><Money amount={v.amount} currency={v.currency} /></div>)}</td></tr>
              ))}</tbody>
            </Table>
          )}
        </>
      )}
    </section>
  );
}
