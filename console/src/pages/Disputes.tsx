/**
 * Disputes (issue 29): the list with its filters (status, stage, merchant, due soon), entering a dispute from a
 * bank letter, and the acquirer notices that matched no payment. A client of /admin/v1/disputes, nothing more.
 */
import { useModeQuery } from '../mode';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { call, type Answer } from '../api/client';
import { queryParamsOf } from '../queryParams';
import { useCan } from '../session';
import { useT } from '../i18n';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, Money, Show, StatusBadge, Table, Time, errorsByField, useLoad, useSubmit } from '../ui';

export type DisputeRow = Answer<'/admin/v1/disputes', 'get'>[number];

const valuesOf = (name: string) => queryParamsOf('/admin/v1/disputes').find((p) => p.name === name)?.values ?? [];
/** The events that open a dispute (the transition table's openers). */
export const OPENING_EVENTS = ['chargeback', 'notification_of_chargeback', 'request_for_information'] as const;
const FILTERS = ['status', 'stage', 'merchant_id', 'due_soon'] as const;

/** The disputes the filters name: the list, or with "due soon" the deadlines passing within 3 days (overdue too). */
async function loadDisputes(q: Record<string, string>): Promise<(DisputeRow & { deadline?: string })[]> {
  if (q.due_soon !== 'yes') {
    return call('get', '/admin/v1/disputes', { query: { status: q.status as never, stage: q.stage as never, merchant_id: q.merchant_id, mode: q.mode as never, limit: '200' } });
  }
  const due = await call('get', '/admin/v1/disputes/due', { query: q.mode ? { mode: q.mode as 'test' | 'live' } : {} });
  return due.filter((d) => (!q.status || d.status === q.status) && (!q.stage || d.stage === q.stage) && (!q.merchant_id || d.merchant_id === q.merchant_id));
}

/** Ids are time-ordered (UUIDv7): their ends tell them apart, their starts do not. */
export const shortId = (id: string) => `…${id.slice(-8)}`;

export function DisputeTable({ rows, label }: { rows: (DisputeRow & { deadline?: string })[]; label: string }) {
  const t = useT();
  return (
    <Table label={label}>
      <thead><tr><th scope="col">{t('disputes.colDispute')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('disputes.stage')}</th><th scope="col">{t('col.amount')}</th><th scope="col">{t('disputes.colReason')}</th><th scope="col">{t('disputes.colDeadline')}</th><th scope="col">{t('disputes.colPayment')}</th><th scope="col">{t('disputes.colSource')}</th></tr></thead>
      <tbody>{rows.map((d) => (
        <tr key={d.id}>
          <td><Link to={`/disputes/${d.id}`}>{shortId(d.id)}</Link></td>
          <td><StatusBadge status={d.status} /></td>
          <td>{d.stage}</td>
          <td><Money amount={d.amount} currency={d.currency} /></td>
          <td>{d.reason_code ?? '—'} ({d.category})</td>
          <td><Time iso={d.due_at} />{d.deadline && <> <StatusBadge status={d.deadline} /></>}</td>
          <td><Link to={`/payments/${d.payment_id}`}>{shortId(d.payment_id)}</Link></td>
          <td>{d.source}</td>
        </tr>))}
      </tbody>
    </Table>
  );
}

/**
 * An operator enters a dispute from the bank's letter: the event that opens it, amount (absent: all that remains
 * captured), reason code, deadline, the issuer's date and a note. Without `paymentId` the payment id is asked.
 */
export function EnterDispute({ paymentId, currency }: { paymentId?: string; currency?: string }) {
  const t = useT();
  const navigate = useNavigate();
  const [form, setForm] = useState({ payment: paymentId ?? '', event: 'chargeback', amount: '', reason_code: '', due_at: '', bank_date: '', note: '' });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const { busy, error, submit } = useSubmit(async () => {
    const body = {
      event: form.event, ...(form.amount ? { amount: form.amount } : {}), ...(form.reason_code ? { reason_code: form.reason_code } : {}),
      ...(form.due_at ? { due_at: new Date(form.due_at).toISOString() } : {}), ...(form.bank_date ? { bank_date: form.bank_date } : {}), ...(form.note ? { note: form.note } : {}),
    };
    const d = await call('post', '/admin/v1/payments/{id}/disputes', { params: { id: form.payment.trim() }, body });
    navigate(`/disputes/${d.id}`);
  });
  return (
    <section aria-labelledby="enter-dispute" className="card">
      <h2 id="enter-dispute">{t('disputes.enterTitle')}</h2>
      <FieldErrors.Provider value={errorsByField(error)}>
        <form className="grid" onSubmit={(e) => void submit(e)}>
          {!paymentId && <Field label={t('disputes.paymentId')}>{(id) => <input id={id} required value={form.payment} onChange={set('payment')} />}</Field>}
          <Field label={t('disputes.letterSays')} path="event">{(id, aria) => (
            <select id={id} {...aria} value={form.event} onChange={set('event')}>{OPENING_EVENTS.map((e) => <option key={e} value={e}>{e.replace(/_/g, ' ')}</option>)}</select>
          )}</Field>
          <Field label={`${t('col.amount')}${currency ? ` (${currency})` : ''}`} path="amount" hint={t('disputes.amountHint')}>{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={form.amount} onChange={set('amount')} />}</Field>
          <Field label={t('disputes.reasonCode')} path="reason_code" hint="Visa 10.4, Mastercard 4837, …">{(id, aria) => <input id={id} {...aria} value={form.reason_code} onChange={set('reason_code')} />}</Field>
          <Field label={t('disputes.respondBy')} path="due_at">{(id, aria) => <input id={id} {...aria} type="datetime-local" value={form.due_at} onChange={set('due_at')} />}</Field>
          <Field label={t('disputes.bankDate')} path="bank_date">{(id, aria) => <input id={id} {...aria} type="date" value={form.bank_date} onChange={set('bank_date')} />}</Field>
          <Field label={t('disputes.letterNote')} path="note">{(id, aria) => <input id={id} {...aria} value={form.note} onChange={set('note')} />}</Field>
          {error && <ErrorNote error={error} />}
          <div className="actions"><button type="submit" className="primary" disabled={busy}>{busy ? t('disputes.entering') : t('disputes.enter')}</button></div>
        </form>
      </FieldErrors.Provider>
    </section>
  );
}

/** The notices that matched no payment, each with the MID it came for; they follow the header's test/live switch. */
function Unmatched() {
  const t = useT();
  const modeQuery = useModeQuery();
  const list = useLoad(() => call('get', '/admin/v1/disputes/unmatched', { query: modeQuery }), `unmatched|${modeQuery.mode ?? ''}`);
  return (
    <section aria-labelledby="unmatched" className="card">
      <h2 id="unmatched">{t('disputes.unmatched')}</h2>
      <p className="sub">{t('disputes.unmatchedExplain')}</p>
      <Show loaded={list} what="unmatched notices">
        {(rows) => rows.length === 0 ? <Empty>{t('disputes.allMatched')}</Empty> : (
          <Table label={t('disputes.unmatchedTable')}>
            <thead><tr><th scope="col">{t('disputes.colReceived')}</th><th scope="col">{t('disputes.colMid')}</th><th scope="col">{t('disputes.colSource')}</th><th scope="col">{t('disputes.colEvent')}</th><th scope="col">{t('disputes.colPaymentNamed')}</th><th scope="col">{t('disputes.colWhy')}</th><th scope="col">{t('disputes.colSignature')}</th></tr></thead>
            <tbody>{rows.map((n) => (
              <tr key={n.id}>
                <td><Time iso={n.received_at} /></td>
                <td title={n.mid_id ?? undefined}>{n.mid_name ?? '—'}{n.mode && <> ({n.mode === 'test' ? t('merchants.sandbox') : t('merchants.live')})</>}</td><td>{n.source}</td><td>{n.event}</td><td>{n.payment_ref ?? '—'}</td>
                <td>{String(n.payload.why ?? '—')}</td><td>{String(n.payload.signature ?? t('disputes.verified'))}</td>
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
    </section>
  );
}

export function Disputes() {
  const t = useT();
  const can = useCan();
  const [search, setSearch] = useSearchParams();
  const modeQuery = useModeQuery();
  const query = { ...Object.fromEntries(FILTERS.map((f) => [f, search.get(f) ?? '']).filter(([, v]) => v)), ...modeQuery } as Record<string, string>;
  const key = JSON.stringify(query);
  const list = useLoad(() => loadDisputes(query), key);
  return (
    <>
      <h1>{t('disputes.title')}</h1>
      <p className="actions"><Link to="/disputes/ratios">{t('disputes.ratiosLink')}</Link></p>
      <form className="filters" aria-label={t('disputes.filterForm')} key={key} onSubmit={(e) => {
        e.preventDefault();
        const next = new URLSearchParams();
        for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
        setSearch(next);
      }}>
        <Field label={t('col.status')}>{(id) => <select id={id} name="status" defaultValue={query.status ?? ''}><option value="">{t('common.any')}</option>{valuesOf('status').map((v) => <option key={v}>{v}</option>)}</select>}</Field>
        <Field label={t('disputes.stage')}>{(id) => <select id={id} name="stage" defaultValue={query.stage ?? ''}><option value="">{t('common.any')}</option>{valuesOf('stage').map((v) => <option key={v}>{v}</option>)}</select>}</Field>
        <Field label={t('disputes.merchantId')}>{(id) => <input id={id} name="merchant_id" defaultValue={query.merchant_id ?? ''} />}</Field>
        <label className="check"><input type="checkbox" name="due_soon" value="yes" defaultChecked={query.due_soon === 'yes'} /> {t('disputes.dueSoon')}</label>
        <div className="actions"><button type="submit" className="primary">{t('common.filter')}</button><button type="button" onClick={() => setSearch(new URLSearchParams())}>{t('payments.clear')}</button></div>
      </form>
      <Show loaded={list} what="disputes">
        {(rows) => rows.length === 0 ? <Empty>{t('disputes.noMatch')}</Empty> : <DisputeTable rows={rows} label={t('disputes.table')} />}
      </Show>
      {can('payments.act') && <EnterDispute />}
      <Unmatched />
    </>
  );
}

/**
 * A payment's disputes, entering one from a bank letter and, for a sandbox merchant's payment, the sandbox's
 * "raise a chargeback" (a notice now, then the chargeback and its deadline on the merchant's test clock).
 */
export function PaymentDisputes({ paymentId, merchantId, currency, captured }: { paymentId: string; merchantId: string; currency: string; captured: boolean }) {
  const t = useT();
  const can = useCan();
  const navigate = useNavigate();
  const list = useLoad(() => call('get', '/admin/v1/disputes', { query: { payment_id: paymentId } }), paymentId);
  const merchant = useLoad(() => (can('merchants.read') ? call('get', '/admin/v1/merchants/{id}', { params: { id: merchantId } }) : Promise.resolve(undefined)), merchantId);
  const [entering, setEntering] = useState(false);
  const [noticeDays, setNoticeDays] = useState('0');
  return (
    <section aria-labelledby="disputes">
      <h2 id="disputes">{t('disputes.title')}</h2>
      <Show loaded={list} what="the payment's disputes">
        {(rows) => rows.length === 0 ? <Empty>{t('disputes.noneOnPayment')}</Empty> : <DisputeTable rows={rows} label={t('disputes.ofPayment')} />}
      </Show>
      {can('payments.act') && captured && (
        <div className="actions">
          <button type="button" aria-expanded={entering} onClick={() => setEntering((e) => !e)}>{entering ? t('disputes.closeForm') : t('disputes.enterTitle')}</button>
          {merchant.data?.sandbox && (
            <ConfirmButton label={t('disputes.raise')} confirmLabel={t('disputes.raiseIt')} title={t('disputes.raiseTitle')}
              action={async () => {
                const d = await call('post', '/admin/v1/sandbox/payments/{id}/chargeback', { params: { id: paymentId }, body: { notice_days: Number(noticeDays) } });
                navigate(`/disputes/${d.id}`);
              }}>
              <p>{t('disputes.raiseExplain')}</p>
              <Field label={t('disputes.noticeDays')}>{(id) => <input id={id} inputMode="numeric" value={noticeDays} onChange={(e) => setNoticeDays(e.target.value)} />}</Field>
            </ConfirmButton>
          )}
        </div>
      )}
      {entering && <EnterDispute paymentId={paymentId} currency={currency} />}
    </section>
  );
}
