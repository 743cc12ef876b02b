/**
 * One payment and its timeline (transactions, 3-D Secure, callbacks with each delivery, disputes); refund (full or
 * partial, with a reason), capture and void as its state allows (the API's allowed_actions) and the role permits.
 */
import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { call, type PaymentDetail } from '../api';
import { useCan } from '../session';
import { useI18n, type Key } from '../i18n';
import { codeName, codeWords } from '../codes';
import { ConfirmButton, Empty, Field, Money, Show, StatusBadge, Table, Time, useLoad } from '../../../console/src/ui';

type P = PaymentDetail['payment'];
type Allowed = P['allowed_actions'][number];

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return <dl className="facts">{rows.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v ?? '—'}</dd></div>)}</dl>;
}

const LABELS: Record<Allowed['action'], Key> = { refund: 'action.refund', capture: 'action.capture', void: 'action.void' };
const PATHS = { refund: '/portal/v1/payments/{id}/refund', capture: '/portal/v1/payments/{id}/capture', void: '/portal/v1/payments/{id}/void' } as const;

/** One action: an amount (when it may take part) and a reason, asked in a dialog; one Idempotency-Key per dialog. */
function Action({ p, allowed, done }: { p: P; allowed: Allowed; done: () => void }) {
  const { t, rich } = useI18n();
  const [amount, setAmount] = useState(allowed.max_amount);
  const [reason, setReason] = useState('');
  const label = t(allowed.action === 'refund' && p.status === 'pending' ? 'action.reverse' : LABELS[allowed.action]);
  return (
    <ConfirmButton label={`${label}…`} confirmLabel={label} title={t('action.title', { action: label, order: p.order_id })} danger={allowed.action !== 'capture'}
      action={async () => {
        const body = { ...(allowed.partial && allowed.action !== 'void' ? { amount } : {}), ...(reason.trim() ? { reason: reason.trim() } : {}) };
        const answer = await call('post', PATHS[allowed.action], { params: { id: p.id }, body });
        if (answer.result === 'declined') throw new Error(answer.reason ? t('action.declinedBecause', { reason: answer.reason }) : t('action.declined'));
        done();
      }}>
      {allowed.partial
        ? <>
            <p>{rich('action.upTo', { amount: <Money amount={allowed.max_amount} currency={p.currency} /> })}</p>
            <Field label={t('action.amount', { currency: p.currency })}>{(id) => <input id={id} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />}</Field>
          </>
        : <p>{rich('action.whole', { amount: <Money amount={allowed.max_amount} currency={p.currency} /> })}</p>}
      {allowed.action !== 'capture' && <Field label={t('action.reason')}>{(id) => <input id={id} maxLength={200} value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>}
    </ConfirmButton>
  );
}

export function PaymentPage() {
  const { t, rich, plural } = useI18n();
  const { id = '' } = useParams();
  const can = useCan();
  const detail = useLoad(() => call('get', '/portal/v1/payments/{id}', { params: { id } }), id);
  return (
    <Show loaded={detail} what={t('payment.what')}>
      {(d) => {
        const p = d.payment;
        return (
          <>
            <p className="crumbs"><Link to="/payments">{t('nav.payments')}</Link> / {p.order_id}</p>
            <h1>{t('payment.title', { order: p.order_id })} <StatusBadge status={p.status} label={codeName(t, p.status)} /></h1>
            {can('payments.act') && p.allowed_actions.length > 0 && (
              <section aria-label={t('payment.actions')} className="actions">{p.allowed_actions.map((a) => <Action key={a.action} p={p} allowed={a} done={detail.reload} />)}</section>
            )}
            <section aria-labelledby="amounts">
              <h2 id="amounts">{t('payment.amounts')}</h2>
              <Facts rows={[
                [t('col.amount'), <Money amount={p.amount} currency={p.currency} />],
                [t('payment.captured'), <Money amount={p.captured_amount} currency={p.currency} />],
                [t('col.refunded'), <Money amount={p.refunded_amount} currency={p.currency} />],
                [t('payments.method'), `${p.method}${p.brand ? ` (${p.brand})` : ''}`], [t('col.card'), p.card], [t('payments.email'), p.payer_email],
                [t('col.created'), <Time iso={p.created_at} />], [t('payment.updated'), <Time iso={p.updated_at} />],
                [t('payments.paymentId'), p.id], [t('payment.declineReason'), p.decline_reason],
              ]} />
            </section>
            <section aria-labelledby="transactions">
              <h2 id="transactions">{t('payment.timeline')}</h2>
              {d.transactions.length === 0 ? <Empty>{t('payment.noTransactions')}</Empty> : (
                <Table label={t('payment.transactions')}>
                  <thead><tr><th scope="col">{t('col.time')}</th><th scope="col">{t('col.type')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('col.amount')}</th><th scope="col">{t('col.reason')}</th><th scope="col">{t('col.by')}</th></tr></thead>
                  <tbody>{d.transactions.map((x) => (
                    <tr key={x.id}>
                      <td><Time iso={x.created_at} /></td><td>{codeName(t, x.type)}</td><td><StatusBadge status={x.status} label={codeName(t, x.status)} /></td>
                      <td><Money amount={x.amount} currency={p.currency} /></td><td>{[x.reason_given, x.reason].filter(Boolean).join(' · ') || '—'}</td><td>{x.initiated_by?.name ?? t('payment.api')}</td>
                    </tr>))}
                  </tbody>
                </Table>
              )}
            </section>
            <section aria-labelledby="tds">
              <h2 id="tds">{t('payment.tds')}</h2>
              {p.three_ds && Object.keys(p.three_ds).length > 0
                ? <Facts rows={Object.entries(p.three_ds).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])} />
                : <Empty>{t('payment.noTds')}</Empty>}
            </section>
            <section aria-labelledby="callbacks">
              <h2 id="callbacks">{t('payment.callbacks')}</h2>
              {d.callbacks.length === 0 ? <Empty>{t('payment.noCallbacks')}</Empty> : d.callbacks.map((c) => (
                <article key={c.id} className="card">
                  <h3><StatusBadge status={c.status} label={codeName(t, c.status)} /> {c.url}</h3>
                  <p>{rich('payment.callbackCreated', { time: <Time iso={c.created_at} /> })}, {plural(c.attempts, 'payment.attemptOne', 'payment.attemptOther')}{c.delivered_at ? <>, {rich('payment.delivered', { time: <Time iso={c.delivered_at} /> })}</> : null}{c.last_error ? `, ${t('payment.lastError', { error: c.last_error })}` : ''}</p>
                </article>
              ))}
            </section>
            <section aria-labelledby="disputes">
              <h2 id="disputes">{t('nav.disputes')}</h2>
              {d.disputes.length === 0 ? <Empty>{t('disputes.none')}</Empty> : (
                <Table label={t('nav.disputes')}>
                  <thead><tr><th scope="col">{t('col.opened')}</th><th scope="col">{t('col.stage')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('col.amount')}</th><th scope="col">{t('col.reason')}</th><th scope="col">{t('col.answerDue')}</th></tr></thead>
                  <tbody>{d.disputes.map((x) => (
                    <tr key={x.id}><td><Link to={`/disputes/${x.id}`}><Time iso={x.created_at} /></Link></td><td>{codeWords(t, x.stage)}</td><td><StatusBadge status={x.status} label={codeName(t, x.status)} /></td><td><Money amount={x.amount} currency={x.currency} /></td><td>{x.reason_code ?? codeWords(t, x.category)}</td><td><Time iso={x.due_at} /></td></tr>
                  ))}</tbody>
                </Table>
              )}
            </section>
          </>
        );
      }}
    </Show>
  );
}
