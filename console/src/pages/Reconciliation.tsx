/**
 * Reconciliation (issue 28): settlement reports uploaded and their batches (totals, flags, the bank credit), the
 * exception queue with its filters and CSV export, one row beside our payment with the actions that resolve it,
 * and the open exceptions per acquirer MID and day for the home page. The admin API matches and posts; the
 * console shows its answers and sends the operator's choices.
 */
import { useState, type ReactNode } from 'react';
import { Link, NavLink, Route, Routes, useParams, useSearchParams } from 'react-router';
import { ApiError, buildUrl, call, send, type Answer, type QueryOf } from '../api/client';
import { useCan } from '../session';
import {
  ConfirmButton, Empty, ErrorNote, Field, FieldErrors, Money, Show, StatusBadge, Table, Time, errorsByField, useLoad, useSubmit,
} from '../ui';
import { Facts } from './PaymentPage';
import { useModeQuery } from '../mode';
import { fill, useT, type Translate } from '../i18n';

type Row = Answer<'/admin/v1/reconciliation/rows', 'get'>['rows'][number];
type Batch = Answer<'/admin/v1/reconciliation/batches', 'get'>[number];
type RowQuery = QueryOf<'/admin/v1/reconciliation/rows', 'get'>;
interface MidChoice { id: string; name: string; merchant: string; connector: string }

/**
 * Every MID with its merchant's name (the first 200 merchants), to pick one and to name them in tables; with a
 * mode, only test keys' (sandbox merchants') or live keys' MIDs, as the header's switch shows.
 */
export function useMids(mode?: 'test' | 'live') {
  return useLoad(async () => {
    const { merchants } = await call('get', '/admin/v1/merchants', { query: { limit: '200', ...(mode ? { mode } : {}) } });
    const lists = await Promise.all(merchants.map((m) => call('get', '/admin/v1/merchants/{id}/mids', { params: { id: m.id } }).then((a) => a.mids.map((x): MidChoice => ({ id: x.id, name: x.name, merchant: m.name, connector: x.connector })))));
    return new Map(lists.flat().map((x) => [x.id, x]));
  }, `mids|${mode ?? ''}`);
}

export const midName = (mids: Map<string, MidChoice> | undefined, id: string): string => {
  const mid = mids?.get(id);
  return mid ? `${mid.name} (${mid.merchant})` : id;
};

function MidSelect({ label, value, onChange, any, only }: { label: string; value: string; onChange: (id: string) => void; any?: string; only?: (m: MidChoice) => boolean }) {
  const t = useT();
  // The picker follows the test/live switch; tables name MIDs from the whole list (their rows are filtered already).
  const mids = useMids(useModeQuery().mode);
  const byMerchant = new Map<string, MidChoice[]>();
  for (const m of mids.data?.values() ?? []) if (!only || only(m)) byMerchant.set(m.merchant, [...(byMerchant.get(m.merchant) ?? []), m]);
  return (
    <Field label={label} path="mid_id">{(id, aria) => (
      <select id={id} {...aria} value={value} required={!any} onChange={(e) => onChange(e.target.value)}>
        <option value="">{any ?? t('money.recon.chooseMid')}</option>
        {[...byMerchant].map(([merchant, list]) => (
          <optgroup key={merchant} label={merchant}>{list.map((m) => <option key={m.id} value={m.id}>{m.name} ({m.connector})</option>)}</optgroup>
        ))}
      </select>)}
    </Field>
  );
}

/** The import's problems, one per line of the file, as the API names them. */
function Problems({ error }: { error: Error }) {
  const t = useT();
  const lines = error instanceof ApiError ? error.body?.errors?.map((e) => e.error_message) ?? [] : [];
  if (lines.length < 2) return <ErrorNote error={error} />;
  return (
    <div className="error" role="alert">
      <p>{fill(t('money.recon.problems'), { n: lines.length })}</p>
      <ul>{lines.map((l, i) => <li key={i}>{l}</li>)}</ul>
    </div>
  );
}

const countsText = (t: Translate, counts: Record<string, number>): string => Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ') || t('money.recon.none');

function Upload({ done }: { done: () => void }) {
  const t = useT();
  const [midId, setMidId] = useState('');
  const [file, setFile] = useState<File>();
  const [batch, setBatch] = useState('');
  const [answer, setAnswer] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    setAnswer(undefined);
    if (!file) throw new Error(t('money.recon.chooseFile'));
    const url = buildUrl('/admin/v1/reconciliation/imports', undefined, { mid_id: midId, file_name: file.name, batch });
    const res = await send('post', url, file, 'text/csv');
    const imported = (await res.json()) as Answer<'/admin/v1/reconciliation/imports', 'post'>;
    setAnswer(imported.unchanged
      ? fill(t('money.recon.importedBefore'), { batch: imported.batch.batch })
      : fill(t('money.recon.imported'), {
        batch: imported.batch.batch, rows: imported.batch.rows, counts: countsText(t, imported.batch.counts),
        more: `${imported.superseded ? t('money.recon.supersedingFile') : ''}${imported.batch.flagged ? fill(t('money.recon.flagged'), { flags: imported.batch.flags.join(' ') }) : ''}`,
      }));
    done();
  });
  return (
    <form className="card" aria-labelledby="upload" onSubmit={(e) => void submit(e)}>
      <h2 id="upload">{t('money.recon.upload')}</h2>
      <p className="sub">{t('money.recon.uploadExplain')}</p>
      <FieldErrors.Provider value={errorsByField(error)}>
        <div className="grid">
          <MidSelect label={t('money.recon.acquirerMid')} value={midId} onChange={setMidId} />
          <Field label={t('money.recon.reportFile')}>{(id) => <input id={id} type="file" accept=".csv,text/csv" required onChange={(e) => setFile(e.target.files?.[0])} />}</Field>
          <Field label={t('money.recon.batchEmpty')} path="batch">{(id, aria) => <input id={id} {...aria} value={batch} onChange={(e) => setBatch(e.target.value)} />}</Field>
        </div>
      </FieldErrors.Provider>
      {error && <Problems error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{busy ? t('money.recon.importing') : t('money.recon.import')}</button>{answer && <span role="status">{answer}</span>}</div>
    </form>
  );
}

/** The connectors whose acquirer is asked for its record (no settlement file): the platform family's. */
const LOOKUP_CONNECTORS = new Set(['akurateco']);
const DAY_MS = 86_400_000;

/**
 * The platform-family upstream's report: the gateway asks the upstream what it booked on each of the MID's payments
 * of a range of days (UTC, both included) and imports the answers like a file.
 */
function UpstreamImport({ done }: { done: () => void }) {
  const t = useT();
  const today = new Date().toISOString().slice(0, 10);
  const [midId, setMidId] = useState('');
  const [from, setFrom] = useState(today);
  const [to, setTo] = useState(today);
  const [answer, setAnswer] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    setAnswer(undefined);
    const until = new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS).toISOString();
    const imported = await call('post', '/admin/v1/reconciliation/upstream-reports', { body: { mid_id: midId, from: `${from}T00:00:00.000Z`, to: until } });
    setAnswer(imported.unchanged
      ? fill(t('money.recon.upstreamSame'), { batch: imported.batch.batch })
      : fill(t('money.recon.imported'), { batch: imported.batch.batch, rows: imported.batch.rows, counts: countsText(t, imported.batch.counts), more: imported.superseded ? t('money.recon.supersedingReport') : '' }));
    done();
  });
  return (
    <form className="card" aria-labelledby="upstream-import" onSubmit={(e) => void submit(e)}>
      <h2 id="upstream-import">{t('money.recon.upstream')}</h2>
      <p className="sub">{t('money.recon.upstreamExplain')}</p>
      <FieldErrors.Provider value={errorsByField(error)}>
        <div className="grid">
          <MidSelect label={t('money.recon.upstreamMid')} value={midId} onChange={setMidId} only={(m) => LOOKUP_CONNECTORS.has(m.connector)} />
          <Field label={t('money.recon.fromDay')} path="from">{(id, aria) => <input id={id} {...aria} type="date" required value={from} onChange={(e) => setFrom(e.target.value)} />}</Field>
          <Field label={t('money.recon.toDay')} path="to">{(id, aria) => <input id={id} {...aria} type="date" required value={to} onChange={(e) => setTo(e.target.value)} />}</Field>
        </div>
      </FieldErrors.Provider>
      {error && <Problems error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{busy ? t('money.recon.asking') : t('money.recon.importUpstream')}</button>{answer && <span role="status">{answer}</span>}</div>
    </form>
  );
}

function BankCredit({ batch, done }: { batch: Batch; done: () => void }) {
  const t = useT();
  const [currency, setCurrency] = useState(batch.totals[0]?.currency ?? '');
  const [amount, setAmount] = useState('');
  return (
    <ConfirmButton label={t('money.recon.bankCreditOpen')} confirmLabel={t('money.recon.bankCreditConfirm')} title={fill(t('money.recon.bankCreditTitle'), { batch: batch.batch })}
      action={async () => { await call('post', '/admin/v1/reconciliation/batches/{id}/bank-credit', { params: { id: batch.id }, body: { currency, amount } }); done(); }}>
      <p>{t('money.recon.bankCreditExplain')}</p>
      <Field label={t('money.currency')}>{(id) => <input id={id} value={currency} onChange={(e) => setCurrency(e.target.value.toUpperCase())} />}</Field>
      <Field label={t('money.recon.amountCredited')}>{(id) => <input id={id} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />}</Field>
    </ConfirmButton>
  );
}

function Imports() {
  const t = useT();
  const can = useCan();
  const mids = useMids();
  const modeQuery = useModeQuery();
  const batches = useLoad(() => call('get', '/admin/v1/reconciliation/batches', { query: modeQuery }), `batches|${modeQuery.mode ?? ''}`);
  return (
    <>
      {can('reconciliation.write') && <Upload done={batches.reload} />}
      {can('reconciliation.write') && [...(mids.data?.values() ?? [])].some((m) => LOOKUP_CONNECTORS.has(m.connector)) && <UpstreamImport done={batches.reload} />}
      <h2>{t('money.recon.imports')}</h2>
      <Show loaded={batches} what="the imports">
        {(list) => (list.length === 0 ? <Empty>{t('money.recon.noImport')}</Empty> : (
          <Table label={t('money.recon.batchesTable')}>
            <thead><tr><th scope="col">{t('money.recon.importedAt')}</th><th scope="col">{t('home.byMid')}</th><th scope="col">{t('money.recon.batch')}</th><th scope="col">{t('money.recon.file')}</th><th scope="col">{t('money.recon.rows')}</th><th scope="col">{t('money.recon.totals')}</th><th scope="col">{t('common.state')}</th><th scope="col">{t('money.recon.byOutcome')}</th>{can('reconciliation.write') && <th scope="col">{t('common.action')}</th>}</tr></thead>
            <tbody>{list.map((b) => (
              <tr key={b.id}>
                <td><Time iso={b.created_at} /></td><td>{midName(mids.data, b.mid_id)}</td>
                <td><Link to={`/reconciliation?batch_id=${encodeURIComponent(b.id)}&open=false`}>{b.batch}</Link></td>
                <td>{b.file_name ?? '—'} <small>{b.layout}</small></td><td>{b.rows}</td>
                <td>{b.totals.map((x) => <div key={x.currency}>{t('money.recon.net')} <Money amount={x.net} currency={x.currency} />, {t('money.recon.fees')} <Money amount={x.fees} currency={x.currency} />{x.payout !== null && <>, {t('money.recon.payout')} <Money amount={x.payout} currency={x.currency} /></>}{x.bank_credit !== null && <>, {t('money.recon.bank')} <Money amount={x.bank_credit} currency={x.currency} /></>}</div>)}</td>
                <td>{!b.live ? <StatusBadge status="superseded" /> : b.flagged ? <><StatusBadge status="flagged" /> {b.flags.join(' ')}</> : <StatusBadge status="agreed" />}</td>
                <td>{countsText(t, b.counts)}</td>
                {can('reconciliation.write') && <td>{b.live && <BankCredit batch={b} done={batches.reload} />}</td>}
              </tr>))}
            </tbody>
          </Table>
        ))}
      </Show>
    </>
  );
}

const OUTCOMES = ['mismatched', 'missing', 'unexpected', 'matched', 'booking'] as const;
const FILTERS = ['mid_id', 'outcome', 'open', 'from', 'to', 'batch_id'] as const;

function rowQueryOf(search: URLSearchParams): RowQuery {
  const q: Record<string, string> = { open: 'true' };
  for (const k of FILTERS) { const v = search.get(k); if (v) q[k] = v; }
  return q as RowQuery;
}

export const differencesText = (row: Pick<Row, 'differences' | 'currency'>, t?: Translate): string =>
  row.differences.map((d) => (t ? fill(t('money.recon.differs'), { field: d.field, ours: d.ours, theirs: d.theirs }) : `${d.field}: ours ${d.ours}, theirs ${d.theirs}`)).join('; ');

function Filters() {
  const t = useT();
  const [search, setSearch] = useSearchParams();
  const q = { ...rowQueryOf(search), ...useModeQuery() };
  const [draft, setDraft] = useState<Record<string, string>>({ ...rowQueryOf(search) } as Record<string, string>);
  const set = (k: string, v: string) => setDraft((d) => ({ ...d, [k]: v }));
  return (
    <form className="filters" aria-label={t('money.recon.filterExceptions')} onSubmit={(e) => { e.preventDefault(); setSearch(Object.fromEntries(Object.entries(draft).filter(([, v]) => v))); }}>
      <MidSelect label={t('home.byMid')} any={t('money.recon.everyMid')} value={draft.mid_id ?? ''} onChange={(v) => set('mid_id', v)} />
      <Field label={t('money.recon.outcome')}>{(id) => (
        <select id={id} value={draft.outcome ?? ''} onChange={(e) => set('outcome', e.target.value)}>
          <option value="">{t('money.recon.anyException')}</option>{OUTCOMES.map((o) => <option key={o}>{o}</option>)}
        </select>)}
      </Field>
      <Field label={t('money.recon.bookedFrom')}>{(id) => <input id={id} type="date" value={draft.from ?? ''} onChange={(e) => set('from', e.target.value)} />}</Field>
      <Field label={t('money.recon.bookedBefore')}>{(id) => <input id={id} type="date" value={draft.to ?? ''} onChange={(e) => set('to', e.target.value)} />}</Field>
      <label className="check"><input type="checkbox" checked={draft.open !== 'false'} onChange={(e) => set('open', e.target.checked ? 'true' : 'false')} /> {t('money.recon.openOnly')}</label>
      <div className="actions">
        <button type="submit" className="primary">{t('common.filter')}</button>
        <a className="button" href={buildUrl('/admin/v1/reconciliation/exceptions.csv', undefined, q)} download="reconciliation-exceptions.csv">{t('money.recon.exportCsv')}</a>
      </div>
    </form>
  );
}

function Exceptions() {
  const t = useT();
  const [search] = useSearchParams();
  const q = { ...rowQueryOf(search), ...useModeQuery() };
  const key = JSON.stringify(q);
  const mids = useMids();
  const [more, setMore] = useState<{ key: string; rows: Row[]; next: string | null }>();
  const first = useLoad(() => call('get', '/admin/v1/reconciliation/rows', { query: { ...q, limit: '100' } }), key);
  const extra = more?.key === key ? more : undefined;
  const loadMore = async (after: string) => {
    const page = await call('get', '/admin/v1/reconciliation/rows', { query: { ...q, limit: '100', after } });
    setMore({ key, rows: [...(extra?.rows ?? []), ...page.rows], next: page.next });
  };
  return (
    <>
      <Filters key={key} />
      <Show loaded={first} what="the exceptions">
        {(page) => {
          const rows = [...page.rows, ...(extra?.rows ?? [])];
          const next = extra ? extra.next : page.next;
          return rows.length === 0 ? <Empty>{t('money.recon.noMatch')}</Empty> : (
            <>
              <Table label={t('money.recon.exceptions')}>
                <thead><tr><th scope="col">{t('money.recon.booked')}</th><th scope="col">{t('home.byMid')}</th><th scope="col">{t('money.recon.outcome')}</th><th scope="col">{t('money.recon.type')}</th><th scope="col">{t('money.recon.reference')}</th><th scope="col">{t('money.amount')}</th><th scope="col">{t('money.recon.differences')}</th><th scope="col">{t('money.recon.resolution')}</th></tr></thead>
                <tbody>{rows.map((r) => (
                  <tr key={r.id}>
                    <td><Time iso={r.booked_at} /></td><td>{midName(mids.data, r.mid_id)}</td>
                    <td><StatusBadge status={r.outcome} /></td><td>{r.type}</td>
                    <td><Link to={`/reconciliation/rows/${r.id}`}>{r.acquirer_ref ?? r.merchant_ref ?? fill(t('money.recon.rowId'), { id: r.id })}</Link>{r.line !== null && <small> {fill(t('money.recon.lineN'), { n: r.line })}</small>}</td>
                    <td><Money amount={r.amount} currency={r.currency} /></td>
                    <td>{differencesText(r, t) || '—'}</td>
                    <td>{r.resolution ?? t('money.recon.open')}</td>
                  </tr>))}
                </tbody>
              </Table>
              {next && <div className="actions"><button type="button" onClick={() => void loadMore(next)}>{t('money.recon.more')}</button></div>}
            </>
          );
        }}
      </Show>
    </>
  );
}

const ACTIONS = [
  { value: 'accept', label: 'money.recon.accept' },
  { value: 'link', label: 'money.recon.link' },
  { value: 'dispute', label: 'money.recon.dispute' },
  { value: 'write_off', label: 'money.recon.writeOff' },
] as const;
type Action = (typeof ACTIONS)[number]['value'];

function Resolve({ row, done }: { row: Row; done: () => void }) {
  const t = useT();
  const [action, setAction] = useState<Action>(row.payment_id ? 'accept' : 'link');
  const [note, setNote] = useState('');
  const [paymentId, setPaymentId] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await call('post', '/admin/v1/reconciliation/rows/{id}/actions', { params: { id: row.id }, body: { action, note, ...(paymentId && (action === 'link' || action === 'dispute') ? { payment_id: paymentId } : {}) } });
    done();
  });
  return (
    <form className="card" aria-labelledby="resolve" onSubmit={(e) => void submit(e)}>
      <h2 id="resolve">{t('money.recon.resolve')}</h2>
      <FieldErrors.Provider value={errorsByField(error)}>
        <fieldset>
          <legend>{t('common.action')}</legend>
          {ACTIONS.map((a) => (
            <label key={a.value} className="check"><input type="radio" name="action" value={a.value} checked={action === a.value} onChange={() => setAction(a.value)} /> {t(a.label)}</label>
          ))}
        </fieldset>
        {(action === 'link' || action === 'dispute') && (
          <Field label={action === 'link' ? t('money.recon.paymentId') : t('money.recon.paymentIdRow')} path="payment_id">{(id, aria) => <input id={id} {...aria} value={paymentId} onChange={(e) => setPaymentId(e.target.value.trim())} />}</Field>
        )}
        <Field label={t('money.recon.note')} path="note">{(id, aria) => <textarea id={id} {...aria} value={note} onChange={(e) => setNote(e.target.value)} />}</Field>
      </FieldErrors.Provider>
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('money.recon.resolve')}</button></div>
    </form>
  );
}

function OurPayment({ id }: { id: string }) {
  const t = useT();
  const detail = useLoad(() => call('get', '/admin/v1/payments/{id}', { params: { id } }), id);
  return (
    <Show loaded={detail} what="our payment">
      {(d) => {
        const p = d.payment;
        return (
          <Facts rows={[
            [t('money.payment'), <Link to={`/payments/${p.id}`}>{p.order_id}</Link>], [t('col.status'), <StatusBadge status={p.status} />],
            [t('money.amount'), <Money amount={p.amount} currency={p.currency} />], [t('money.recon.captured'), <Money amount={p.captured_amount} currency={p.currency} />],
            [t('money.recon.refunded'), <Money amount={p.refunded_amount} currency={p.currency} />], [t('money.recon.ourFee'), <Money amount={d.money.fee} currency={p.currency} />],
            [t('money.recon.connectorRef'), p.connector.reference], [t('money.recon.created'), <Time iso={p.created_at} />],
          ]} />
        );
      }}
    </Show>
  );
}

function RowPage() {
  const t = useT();
  const { id = '' } = useParams();
  const can = useCan();
  const mids = useMids();
  const row = useLoad(() => call('get', '/admin/v1/reconciliation/rows/{id}', { params: { id } }), id);
  const side = (title: string, body: ReactNode) => <section className="card" aria-label={title}><h2>{title}</h2>{body}</section>;
  return (
    <Show loaded={row} what="the row">
      {(r) => (
        <>
          <p className="crumbs"><Link to="/reconciliation">{t('money.recon.exceptions')}</Link> / {r.acquirer_ref ?? r.merchant_ref ?? fill(t('money.recon.rowId'), { id: r.id })}</p>
          <h2>{r.line !== null ? fill(t('money.recon.rowAtLine'), { n: r.line }) : t('money.recon.rowOurs')} <StatusBadge status={r.outcome} /> {r.resolution && <StatusBadge status={r.resolution} />}</h2>
          {r.differences.length > 0 && <p className="warn">{fill(t('money.recon.differsIn'), { differences: differencesText(r, t) })}</p>}
          <div className="side-by-side">
            {side(t('money.recon.reportSays'), <Facts rows={[
              [t('home.byMid'), midName(mids.data, r.mid_id)], [t('money.recon.type'), `${r.type} (${r.kind})`], [t('money.recon.acquirerRef'), r.acquirer_ref], [t('money.recon.merchantRef'), r.merchant_ref],
              [t('money.recon.modificationRef'), r.modification_ref], [t('money.amount'), <Money amount={r.amount} currency={r.currency} />], [t('money.recon.netLabel'), <Money amount={r.net} currency={r.net_currency} />],
              [t('money.recon.acquirerFee'), <Money amount={r.fee} currency={r.net_currency} />], [t('money.recon.contractedFee'), r.expected_fee === null ? null : <Money amount={r.expected_fee} currency={r.net_currency} />],
              [t('money.method'), r.method], [t('money.recon.booked'), <Time iso={r.booked_at} />], [t('money.recon.matchedBy'), r.matched_by],
              [t('money.recon.batch'), <Link to={`/reconciliation?batch_id=${encodeURIComponent(r.batch_id)}&open=false`}>{r.batch_id}</Link>],
            ]} />)}
            {side(t('money.recon.ourPayment'), r.payment_id ? <OurPayment id={r.payment_id} /> : <Empty>{t('money.recon.noOurPayment')}</Empty>)}
          </div>
          {r.resolution
            ? <p>{fill(t('money.recon.resolvedBy'), { resolution: r.resolution, user: r.resolved_by ?? '—' })} <Time iso={r.resolved_at} />: {r.resolution_note}</p>
            : can('reconciliation.write') && ['mismatched', 'missing', 'unexpected'].includes(r.outcome) && <Resolve row={r} done={row.reload} />}
        </>
      )}
    </Show>
  );
}

/** The open exceptions per acquirer MID, booking day, currency and outcome (the console's home page). */
export function Unreconciled() {
  const t = useT();
  const modeQuery = useModeQuery();
  const summary = useLoad(() => call('get', '/admin/v1/reconciliation/summary', { query: modeQuery }), `summary|${modeQuery.mode ?? ''}`);
  return (
    <section aria-labelledby="unreconciled">
      <h2 id="unreconciled">{t('money.recon.unreconciled')}</h2>
      <Show loaded={summary} what="the open exceptions">
        {(rows) => (rows.length === 0 ? <Empty>{t('money.recon.allReconciled')}</Empty> : <SummaryTable rows={rows} />)}
      </Show>
    </section>
  );
}

/** The open exceptions, MIDs named (their names are only read when something is open). */
function SummaryTable({ rows }: { rows: Answer<'/admin/v1/reconciliation/summary', 'get'> }) {
  const t = useT();
  const mids = useMids();
  return (
          <Table label={t('money.recon.summaryTable')}>
            <thead><tr><th scope="col">{t('money.recon.acquirerMid')}</th><th scope="col">{t('money.recon.day')}</th><th scope="col">{t('money.recon.outcome')}</th><th scope="col">{t('money.recon.rows')}</th><th scope="col">{t('money.amount')}</th></tr></thead>
            <tbody>{rows.map((s) => (
              <tr key={`${s.mid_id}:${s.day}:${s.currency}:${s.outcome}`}>
                <td>{midName(mids.data, s.mid_id)}</td><td>{s.day}</td><td><StatusBadge status={s.outcome} /></td>
                <td><Link to={`/reconciliation?mid_id=${encodeURIComponent(s.mid_id)}&outcome=${s.outcome}&from=${s.day}&to=${nextDay(s.day)}`}>{s.rows}</Link></td>
                <td><Money amount={s.amount} currency={s.currency} /></td>
              </tr>))}
            </tbody>
          </Table>
  );
}

const nextDay = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export function ReconciliationPage() {
  const t = useT();
  return (
    <>
      <h1>{t('nav.reconciliation')}</h1>
      <nav aria-label={t('money.recon.sections')} className="tabs">
        <NavLink to="/reconciliation" end>{t('money.recon.exceptions')}</NavLink>
        <NavLink to="/reconciliation/imports">{t('money.recon.imports')}</NavLink>
      </nav>
      <Routes>
        <Route index element={<Exceptions />} />
        <Route path="imports" element={<Imports />} />
        <Route path="rows/:id" element={<RowPage />} />
      </Routes>
    </>
  );
}
