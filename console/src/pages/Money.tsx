/**
 * The merchant's money (issue 27): balances per merchant and currency with manual adjustments (admins), fee
 * schedule versions and their editor, settlement statements (lines, CSV) and payouts (mark paid, CSV and SEPA
 * files). Every figure is the admin API's decimal string, shown as it is; nothing is computed here.
 */
import { useState } from 'react';
import { Link, NavLink, Route, Routes, useParams, useSearchParams } from 'react-router';
import { call, saveFile, send, type Answer, type BodyOf } from '../api/client';
import { useCan } from '../session';
import {
  ConfirmButton, Empty, ErrorNote, Field, FieldErrors, InlineErrors, Money as Amount, Show, StatusBadge, Table, Time, errorsByField, useLoad, useSubmit,
} from '../ui';
import { Facts } from './PaymentPage';
import { useUnsavedForm } from '../comfort';
import { fill, useT, type Translate } from '../i18n';

type Statement = Answer<'/admin/v1/money/statements', 'get'>[number];
type Schedule = Answer<'/admin/v1/money/fee-schedules', 'get'>[number];
type FeeRow = BodyOf<'/admin/v1/money/fee-schedules', 'post'>['rows'][number];

/** The merchants to choose from (the first 200, newest first). */
function useMerchants() {
  return useLoad(() => call('get', '/admin/v1/merchants', { query: { limit: '200' } }).then((a) => a.merchants), 'merchants');
}

/** A merchant picker bound to the `merchant_id` query parameter; `none` names the choice of no merchant. */
function MerchantPicker({ label, none }: { label: string; none: string }) {
  const merchants = useMerchants();
  const [search, setSearch] = useSearchParams();
  const value = search.get('merchant_id') ?? '';
  return (
    <Field label={label}>{(id) => (
      <select id={id} value={value} onChange={(e) => setSearch(e.target.value ? { merchant_id: e.target.value } : {})}>
        <option value="">{none}</option>
        {(merchants.data ?? []).map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
      </select>)}
    </Field>
  );
}

function Adjustment({ merchantId, currencies, done }: { merchantId: string; currencies: string[]; done: () => void }) {
  const t = useT();
  const [currency, setCurrency] = useState(currencies[0] ?? '');
  const [amount, setAmount] = useState('');
  const [direction, setDirection] = useState<'credit' | 'debit'>('credit');
  const [reason, setReason] = useState('');
  const [posted, setPosted] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    setPosted(false);
    await call('post', '/admin/v1/merchants/{id}/adjustments', { params: { id: merchantId }, body: { currency, amount, direction, reason } });
    setAmount('');
    setReason('');
    setPosted(true);
    done();
  });
  return (
    <form className="card" aria-labelledby="adjust" onSubmit={(e) => void submit(e)}>
      <h2 id="adjust">{t('money.adjust')}</h2>
      <p className="sub">{t('money.adjustExplain')}</p>
      <FieldErrors.Provider value={errorsByField(error)}>
        <div className="grid">
          <Field label={t('money.currency')} path="currency">{(id, aria) => <input id={id} {...aria} value={currency} onChange={(e) => setCurrency(e.target.value.toUpperCase())} list="adjust-currencies" />}</Field>
          <datalist id="adjust-currencies">{currencies.map((c) => <option key={c} value={c} />)}</datalist>
          <Field label={t('money.amount')} path="amount">{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />}</Field>
          <Field label={t('money.direction')}>{(id) => (
            <select id={id} value={direction} onChange={(e) => setDirection(e.target.value as 'credit' | 'debit')}>
              <option value="credit">{t('money.credit')}</option>
              <option value="debit">{t('money.debit')}</option>
            </select>)}
          </Field>
          <Field label={t('money.reason')} path="reason">{(id, aria) => <input id={id} {...aria} value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
        </div>
      </FieldErrors.Provider>
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('money.postAdjustment')}</button>{posted && <span role="status">{t('money.posted')}</span>}</div>
    </form>
  );
}

function Balances() {
  const t = useT();
  const can = useCan();
  const [search] = useSearchParams();
  const merchantId = search.get('merchant_id') ?? '';
  const balances = useLoad(() => (merchantId ? call('get', '/admin/v1/merchants/{id}/balances', { params: { id: merchantId } }) : Promise.resolve(null)), merchantId);
  return (
    <>
      <div className="filters"><MerchantPicker label={t('money.merchant')} none={t('money.chooseMerchant')} /></div>
      {!merchantId ? <Empty>{t('money.chooseToSee')}</Empty> : (
        <Show loaded={balances} what="the balances">
          {(b) => (
            <>
              {!b || b.balances.length === 0 ? <Empty>{t('money.noAccount')}</Empty> : (
                <Table label={t('money.balancesTable')}>
                  <thead><tr><th scope="col">{t('money.currency')}</th><th scope="col">{t('money.pending')}</th><th scope="col">{t('money.feesAccrued')}</th><th scope="col">{t('money.available')}</th><th scope="col">{t('money.reserve')}</th><th scope="col">{t('money.total')}</th></tr></thead>
                  <tbody>{b.balances.map((x) => (
                    <tr key={x.currency}>
                      <th scope="row">{x.currency}</th>
                      <td><Amount amount={x.pending} currency={x.currency} /></td><td><Amount amount={x.fees} currency={x.currency} /></td>
                      <td><Amount amount={x.available} currency={x.currency} /></td><td><Amount amount={x.reserve} currency={x.currency} /></td>
                      <td><Amount amount={x.total} currency={x.currency} /></td>
                    </tr>))}
                  </tbody>
                </Table>
              )}
              <p><Link to={`/money/statements?merchant_id=${encodeURIComponent(merchantId)}`}>{t('money.merchantStatements')}</Link></p>
              <div className="actions"><a className="button" href={`/admin/v1/merchants/${encodeURIComponent(merchantId)}/money/fees/csv`} download>{t('money.exportFees')}</a></div>
              {can('money.adjust') && <Adjustment merchantId={merchantId} currencies={(b?.balances ?? []).map((x) => x.currency)} done={balances.reload} />}
            </>
          )}
        </Show>
      )}
    </>
  );
}

const OPERATIONS = ['sale', 'refund', 'payout', 'chargeback'];
const REGIONS = ['*', 'domestic', 'intra_region', 'international'];
const blankRow = (): FeeRow => ({ operation: 'sale', method: '*', region: '*', currency: '*', percent: '0', fixed: '0', min: '0', max: null });

function ScheduleRows({ schedule }: { schedule: Schedule }) {
  const t = useT();
  return (
    <Table label={fill(t('money.feeRowsFrom'), { date: schedule.effective_from })}>
      <thead><tr><th scope="col">{t('money.operation')}</th><th scope="col">{t('money.method')}</th><th scope="col">{t('money.region')}</th><th scope="col">{t('money.currency')}</th><th scope="col">{t('money.percent')}</th><th scope="col">{t('money.fixed')}</th><th scope="col">{t('money.minimum')}</th><th scope="col">{t('money.maximum')}</th></tr></thead>
      <tbody>{schedule.rows.map((r, i) => (
        <tr key={i}><td>{r.operation}</td><td>{r.method}</td><td>{r.region}</td><td>{r.currency}</td><td>{r.percent} %</td><td>{r.fixed}</td><td>{r.min}</td><td>{r.max ?? '—'}</td></tr>))}
      </tbody>
    </Table>
  );
}

/** A datetime-local value (the operator's zone) as an instant. */
const instantOf = (local: string): string => (local ? new Date(local).toISOString() : '');

function ScheduleEditor({ merchantId, from, done }: { merchantId: string | null; from: FeeRow[]; done: () => void }) {
  const t = useT();
  const [effective, setEffective] = useState('');
  const [rows, setRows] = useState<FeeRow[]>(from.length > 0 ? from : [blankRow()]);
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    await call('post', '/admin/v1/money/fee-schedules', { body: { merchant_id: merchantId, effective_from: instantOf(effective), rows } });
    done();
    unsaved.saved();
  });
  const update = (i: number, patch: Partial<FeeRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const text = (i: number, key: 'method' | 'currency' | 'percent' | 'fixed' | 'min', label: string) => (
    <Field label={label} path={`rows[${i}].${key}`}>{(id, aria) => <input id={id} {...aria} value={rows[i]![key] ?? ''} onChange={(e) => update(i, { [key]: e.target.value })} />}</Field>
  );
  return (
    <form {...unsaved.form} className="card" aria-labelledby="new-version" onSubmit={(e) => void submit(e)}>
      <h2 id="new-version">{t('money.newVersion')}</h2>
      <p className="sub">{t('money.newVersionExplain')}</p>
      <FieldErrors.Provider value={errorsByField(error)}>
        <Field label={t('money.effectiveFrom')} path="effective_from">{(id, aria) => <input id={id} {...aria} type="datetime-local" required value={effective} onChange={(e) => setEffective(e.target.value)} />}</Field>
        {rows.map((r, i) => (
          <fieldset key={i} className="card">
            <legend>{fill(t('money.row'), { n: i + 1 })}</legend>
            <div className="grid">
              <Field label={t('money.operation')} path={`rows[${i}].operation`}>{(id, aria) => (
                <select id={id} {...aria} value={r.operation} onChange={(e) => update(i, { operation: e.target.value })}>{OPERATIONS.map((o) => <option key={o}>{o}</option>)}</select>)}
              </Field>
              {text(i, 'method', t('money.methodAny'))}
              <Field label={t('money.cardRegion')} path={`rows[${i}].region`}>{(id, aria) => (
                <select id={id} {...aria} value={r.region ?? '*'} onChange={(e) => update(i, { region: e.target.value })}>{REGIONS.map((o) => <option key={o}>{o}</option>)}</select>)}
              </Field>
              {text(i, 'currency', t('money.currencyAny'))}
              {text(i, 'percent', t('money.percent'))}
              {text(i, 'fixed', t('money.fixedAmount'))}
              {text(i, 'min', t('money.minimum'))}
              <Field label={t('money.maximumNone')} path={`rows[${i}].max`}>{(id, aria) => <input id={id} {...aria} value={r.max ?? ''} onChange={(e) => update(i, { max: e.target.value || null })} />}</Field>
            </div>
            <button type="button" onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}>{fill(t('money.removeRow'), { n: i + 1 })}</button>
          </fieldset>
        ))}
      </FieldErrors.Provider>
      {error && <ErrorNote error={error} />}
      <div className="actions">
        <button type="button" onClick={() => setRows((rs) => [...rs, blankRow()])}>{t('money.addRow')}</button>
        <button type="submit" className="primary" disabled={busy}>{t('money.saveVersion')}</button>
      </div>
    </form>
  );
}

function FeeSchedules() {
  const t = useT();
  const can = useCan();
  const [search] = useSearchParams();
  const merchantId = search.get('merchant_id') ?? '';
  const versions = useLoad(() => call('get', '/admin/v1/money/fee-schedules', { query: merchantId ? { merchant_id: merchantId } : {} }), merchantId);
  const [savedFor, setSavedFor] = useState<string>();
  return (
    <>
      <div className="filters"><MerchantPicker label={t('money.scheduleOf')} none={t('money.platformDefault')} /></div>
      <Show loaded={versions} what="the fee schedules">
        {(all) => {
          const own = all.filter((s) => (s.merchant_id ?? '') === merchantId).sort((a, b) => b.effective_from.localeCompare(a.effective_from));
          return (
            <>
              {own.length === 0
                ? <Empty>{merchantId ? t('money.noOwnVersion') : t('money.noDefault')}</Empty>
                : own.map((s) => (
                  <section key={s.id} className="card" aria-label={fill(t('money.versionFrom'), { date: s.effective_from })}>
                    <h2>{t('money.from')} <Time iso={s.effective_from} /></h2>
                    <p className="sub">{t('money.savedAt')} <Time iso={s.created_at} />{s.created_by ? ` ${fill(t('money.by'), { user: s.created_by })}` : ''}</p>
                    <ScheduleRows schedule={s} />
                  </section>))}
              {savedFor === merchantId && <p role="status">{t('money.savedListed')}</p>}
              {/* Keyed by the latest version: the editor starts again from it once it is loaded (or saved). */}
              {can('money.write') && <ScheduleEditor key={`${merchantId}:${own[0]?.id ?? ''}`} merchantId={merchantId || null} from={(own[0]?.rows ?? []).map((r) => ({ ...r }))} done={() => { setSavedFor(merchantId); versions.reload(); }} />}
            </>
          );
        }}
      </Show>
    </>
  );
}

/** A statement's period; the first statement of an account starts at the epoch: shown as "to" its end. */
const periodOf = (t: Translate, s: Pick<Statement, 'period_from' | 'period_to' | 'currency'>): string =>
  `${s.period_from.startsWith('1970-01-01') ? t('money.periodTo') : `${s.period_from.slice(0, 10)} –`} ${s.period_to.slice(0, 10)} ${s.currency}`;

function MarkPaid({ statement, done }: { statement: Statement; done: () => void }) {
  const t = useT();
  const [reference, setReference] = useState('');
  return (
    <ConfirmButton label={t('money.markPaidOpen')} confirmLabel={t('money.markPaid')} title={fill(t('money.markPaidTitle'), { period: periodOf(t, statement) })}
      action={async () => { await call('post', '/admin/v1/money/statements/{id}/paid', { params: { id: statement.id }, body: { bank_reference: reference } }); done(); }}>
      <p>{t('money.netPayable')} <Amount amount={statement.net_payable} currency={statement.currency} />. {t('money.postsOnce')}</p>
      <Field label={t('money.bankReference')}>{(id) => <input id={id} required value={reference} onChange={(e) => setReference(e.target.value)} />}</Field>
    </ConfirmButton>
  );
}

function StatementTable({ statements, done }: { statements: Statement[]; done: () => void }) {
  const t = useT();
  const can = useCan();
  return (
    <Table label={t('money.statements')}>
      <thead><tr><th scope="col">{t('money.period')}</th><th scope="col">{t('money.merchant')}</th><th scope="col">{t('money.gross')}</th><th scope="col">{t('money.fees')}</th><th scope="col">{t('money.reserveHeld')}</th><th scope="col">{t('money.netPayable')}</th><th scope="col">{t('money.lines')}</th><th scope="col">{t('money.payout')}</th></tr></thead>
      <tbody>{statements.map((s) => (
        <tr key={s.id}>
          <td><Link to={`/money/statements/${s.id}`}>{periodOf(t, s)}</Link></td>
          <td>{s.merchant_id}</td>
          <td><Amount amount={s.gross} currency={s.currency} /></td><td><Amount amount={s.fees} currency={s.currency} /></td>
          <td><Amount amount={s.reserve_held} currency={s.currency} /></td><td><Amount amount={s.net_payable} currency={s.currency} /></td>
          <td>{s.transactions}</td>
          <td>{s.payout ? fill(t('money.paidRef'), { reference: s.payout.bank_reference }) : can('money.write') ? <MarkPaid statement={s} done={done} /> : t('money.unpaid')}</td>
        </tr>))}
      </tbody>
    </Table>
  );
}

function Statements() {
  const t = useT();
  const [search, setSearch] = useSearchParams();
  const merchantId = search.get('merchant_id') ?? '';
  const unpaid = search.get('unpaid') === 'true';
  const list = useLoad(() => call('get', '/admin/v1/money/statements', { query: { ...(merchantId ? { merchant_id: merchantId } : {}), ...(unpaid ? { unpaid: 'true' as const } : {}) } }), `${merchantId}:${unpaid}`);
  return (
    <>
      <div className="filters">
        <MerchantPicker label={t('money.merchant')} none={t('money.allMerchants')} />
        <label className="check"><input type="checkbox" checked={unpaid} onChange={(e) => setSearch({ ...(merchantId ? { merchant_id: merchantId } : {}), ...(e.target.checked ? { unpaid: 'true' } : {}) })} /> {t('money.unpaidOnly')}</label>
      </div>
      <Show loaded={list} what="the statements">
        {(s) => (s.length === 0 ? <Empty>{t('money.noStatement')}</Empty> : <StatementTable statements={s} done={list.reload} />)}
      </Show>
    </>
  );
}

function StatementPage() {
  const t = useT();
  const { id = '' } = useParams();
  const can = useCan();
  const statement = useLoad(() => call('get', '/admin/v1/money/statements/{id}', { params: { id } }), id);
  return (
    <Show loaded={statement} what="the statement">
      {(s) => (
        <>
          <p className="crumbs"><Link to="/money/statements">{t('money.statements')}</Link> / {periodOf(t, s)}</p>
          <h2>{fill(t('money.statement'), { period: periodOf(t, s) })} {s.payout ? <StatusBadge status="paid" /> : <StatusBadge status="unpaid" />}</h2>
          <Facts rows={[
            [t('money.merchant'), <Link to={`/money?merchant_id=${encodeURIComponent(s.merchant_id)}`}>{s.merchant_id}</Link>],
            [t('money.openingAvailable'), <Amount amount={s.opening_available} currency={s.currency} />],
            [t('money.gross'), <Amount amount={s.gross} currency={s.currency} />], [t('money.fees'), <Amount amount={s.fees} currency={s.currency} />],
            [t('money.reserveHeld'), <Amount amount={s.reserve_held} currency={s.currency} />], [t('money.reserveReleased'), s.reserve_released_at ? <Time iso={s.reserve_released_at} /> : s.reserve_release_at ? <>{t('money.due')} <Time iso={s.reserve_release_at} /></> : null],
            [t('money.netPayable'), <Amount amount={s.net_payable} currency={s.currency} />], [t('money.transactions'), String(s.transactions)],
            [t('money.payout'), s.payout ? <>{s.payout.bank_reference}, <Amount amount={s.payout.amount} currency={s.currency} /> {t('money.on')} <Time iso={s.payout.paid_at} />{s.payout.paid_by ? ` ${fill(t('money.by'), { user: s.payout.paid_by })}` : ''}</> : t('money.notPaidYet')],
          ]} />
          <div className="actions">
            <a className="button" href={`/admin/v1/money/statements/${encodeURIComponent(s.id)}/csv`} download>{t('money.downloadCsv')}</a>
            {!s.payout && can('money.write') && <MarkPaid statement={s} done={statement.reload} />}
          </div>
          <h3>{s.lines.length < s.transactions ? fill(t('money.linesFirst'), { n: s.lines.length }) : t('money.lines')}</h3>
          {s.lines.length === 0 ? <Empty>{t('money.noLine')}</Empty> : (
            <Table label={t('money.linesTable')}>
              <thead><tr><th scope="col">{t('money.time')}</th><th scope="col">{t('money.event')}</th><th scope="col">{t('money.payment')}</th><th scope="col">{t('money.account')}</th><th scope="col">{t('money.amount')}</th></tr></thead>
              <tbody>{s.lines.map((l, i) => (
                <tr key={i}><td><Time iso={l.created_at} /></td><td>{l.event}</td><td>{l.payment_id ? <Link to={`/payments/${l.payment_id}`}>{l.payment_id}</Link> : '—'}</td><td><code>{l.account}</code></td><td><Amount amount={l.amount} currency={s.currency} /></td></tr>))}
              </tbody>
            </Table>
          )}
        </>
      )}
    </Show>
  );
}

function SepaExport() {
  const t = useT();
  const [name, setName] = useState('');
  const [iban, setIban] = useState('');
  const [bic, setBic] = useState('');
  const [date, setDate] = useState('');
  const [made, setMade] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    setMade(undefined);
    const body = JSON.stringify({ debtor: { name, iban, bic }, ...(date ? { execution_date: date } : {}) });
    const res = await send('post', '/admin/v1/money/payouts/sepa', body, 'application/json');
    saveFile(await res.blob(), 'payouts-pain.001.001.09.xml');
    setMade(fill(t('money.sepaMade'), { transfers: res.headers.get('x-payouts-transfers') ?? '?', skipped: res.headers.get('x-payouts-skipped') ?? '?' }));
  });
  return (
    <form className="card" aria-labelledby="sepa" onSubmit={(e) => void submit(e)}>
      <h2 id="sepa">{t('money.sepa')}</h2>
      <p className="sub">{t('money.sepaExplain')}</p>
      <FieldErrors.Provider value={errorsByField(error)}>
        <div className="grid">
          <Field label={t('money.debtorName')} path="debtor.name">{(id, aria) => <input id={id} {...aria} required value={name} onChange={(e) => setName(e.target.value)} />}</Field>
          <Field label={t('money.debtorIban')} path="debtor.iban">{(id, aria) => <input id={id} {...aria} required value={iban} onChange={(e) => setIban(e.target.value)} />}</Field>
          <Field label={t('money.debtorBic')} path="debtor.bic">{(id, aria) => <input id={id} {...aria} required value={bic} onChange={(e) => setBic(e.target.value)} />}</Field>
          <Field label={t('money.executionDate')} path="execution_date">{(id, aria) => <input id={id} {...aria} type="date" value={date} onChange={(e) => setDate(e.target.value)} />}</Field>
        </div>
      </FieldErrors.Provider>
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('money.exportSepa')}</button>{made && <span role="status">{made}</span>}</div>
    </form>
  );
}

function Payouts() {
  const t = useT();
  const due = useLoad(() => call('get', '/admin/v1/money/statements', { query: { unpaid: 'true' } }), 'due');
  return (
    <>
      <div className="actions"><a className="button" href="/admin/v1/money/payouts/csv" download="payouts.csv">{t('money.exportPayouts')}</a></div>
      <Show loaded={due} what="the payouts due">
        {(s) => (s.length === 0 ? <Empty>{t('money.noPayoutDue')}</Empty> : <StatementTable statements={s} done={due.reload} />)}
      </Show>
      <SepaExport />
    </>
  );
}

export function MoneyPage() {
  const t = useT();
  return (
    <>
      <h1>{t('nav.money')}</h1>
      <nav aria-label={t('money.sections')} className="tabs">
        <NavLink to="/money" end>{t('money.tabBalances')}</NavLink>
        <NavLink to="/money/fees">{t('money.tabFees')}</NavLink>
        <NavLink to="/money/statements">{t('money.tabStatements')}</NavLink>
        <NavLink to="/money/payouts">{t('money.tabPayouts')}</NavLink>
      </nav>
      <Routes>
        <Route index element={<Balances />} />
        <Route path="fees" element={<FeeSchedules />} />
        <Route path="statements" element={<Statements />} />
        <Route path="statements/:id" element={<StatementPage />} />
        <Route path="payouts" element={<Payouts />} />
      </Routes>
    </>
  );
}
