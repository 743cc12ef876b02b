import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { call, type PaymentDetail } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton, Empty, Field, Money, Show, StatusBadge, Table, Time, useLoad } from '../ui';
import { Resolve, heldText } from './NeedsAttention';
import { ListPaymentValues, PaymentRisk, riskTimelineText } from './PaymentRisk';
import { PaymentDisputes } from './Disputes';
import { PaymentTimeline, RefundReason } from './PaymentTimeline';
import { fill, useT, type Key } from '../i18n';

type P = PaymentDetail['payment'];

type Allowed = P['allowed_actions'][number];

/** A translated text whose {placeholders} are elements (an amount, a time): the text split around them. */
function withNodes(text: string, nodes: Readonly<Record<string, ReactNode>>): ReactNode {
  return text.split(/\{(\w+)\}/).map((part, i) => (i % 2 === 1 && part in nodes ? <span key={i}>{nodes[part]}</span> : part));
}

export function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return <dl className="facts">{rows.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v ?? '—'}</dd></div>)}</dl>;
}

/** Capture or refund: an amount up to the API's max_amount, editable only when the action may take part of it. */
function AmountAction({ kind, payment, allowed, done }: { kind: 'capture' | 'refund'; payment: P; allowed: Allowed; done: () => void }) {
  const max = allowed.max_amount ?? payment.amount;
  const [amount, setAmount] = useState(max);
  const [reason, setReason] = useState('');
  const t = useT();
  const path = kind === 'capture' ? '/admin/v1/payments/{id}/capture' as const : '/admin/v1/payments/{id}/refund' as const;
  // A refund of a held authorization is its reversal: the whole amount, nothing to type.
  const verb = kind === 'capture' ? 'capture' : payment.status === 'pending' ? 'reverse' : 'refund';
  const label = t(`pay.${verb}`);
  const KEYS = { capture: ['pay.captureTitle', 'pay.amountToCapture'], reverse: ['pay.reverseTitle', 'pay.amountToReverse'], refund: ['pay.refundTitle', 'pay.amountToRefund'] } as const satisfies Record<typeof verb, [Key, Key]>;
  return (
    <ConfirmButton label={`${label}…`} confirmLabel={label} title={fill(t(KEYS[verb][0]), { order: payment.order_id })} danger={kind === 'refund'}
      action={async () => {
        const answer = await call('post', path, { params: { id: payment.id }, body: { ...(allowed.partial ? { amount } : {}), ...(kind === 'refund' && reason ? { reason } : {}) } });
        if (answer.result === 'declined' || answer.result === 'failed') throw new Error(answer.reason ? fill(t('pay.connectorAnsweredWhy'), { result: answer.result, reason: answer.reason }) : fill(t('pay.connectorAnswered'), { result: answer.result }));
        done();
      }}>
      {allowed.partial
        ? <>
            <p>{withNodes(t('pay.upTo'), { amount: <Money amount={max} currency={payment.currency} /> })}</p>
            <Field label={fill(t(KEYS[verb][1]), { currency: payment.currency })}>{(id) => <input id={id} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />}</Field>
          </>
        : <p>{withNodes(t('pay.wholeReleased'), { amount: <Money amount={max} currency={payment.currency} /> })}</p>}
      {kind === 'refund' && <RefundReason value={reason} onChange={setReason} />}
    </ConfirmButton>
  );
}

/** The actions the payment's state allows now, as the API lists them (allowed_actions); the role decides who sees them. */
function Actions({ p, done }: { p: P; done: () => void }) {
  const t = useT();
  const of = (action: Allowed['action']) => p.allowed_actions.find((a) => a.action === action);
  const [capture, refund, voiding, resolve] = [of('capture'), of('refund'), of('void'), of('resolve')];
  if (p.allowed_actions.length === 0) return null;
  return (
    <section aria-label={t('pay.actions')} className="actions">
      {capture && <AmountAction kind="capture" payment={p} allowed={capture} done={done} />}
      {refund && <AmountAction kind="refund" payment={p} allowed={refund} done={done} />}
      {voiding && (
        <ConfirmButton label={`${t('pay.void')}…`} confirmLabel={t('pay.void')} title={fill(t('pay.voidTitle'), { order: p.order_id })} danger
          action={async () => { await call('post', '/admin/v1/payments/{id}/void', { params: { id: p.id } }); done(); }}>
          <p>{withNodes(t('pay.wholeVoided'), { amount: <Money amount={voiding.max_amount ?? p.amount} currency={p.currency} /> })}</p>
        </ConfirmButton>
      )}
      {resolve && <Resolve id={p.id} orderId={p.order_id} done={done} />}
    </section>
  );
}

/** What a resend did, in words. */
const RESEND_WORDS = { resent: 'pay.resent', due_now: 'pay.dueNow', sending: 'pay.sending' } as const;

export function PaymentPage() {
  const t = useT();
  const { id = '' } = useParams();
  const can = useCan();
  const [resent, setResent] = useState<string>();
  const detail = useLoad(() => call('get', '/admin/v1/payments/{id}', { params: { id } }), id);
  return (
    <Show loaded={detail} what="the payment">
      {(d) => {
        const p = d.payment;
        return (
          <>
            <p className="crumbs"><Link to="/payments">{t('nav.payments')}</Link> / {p.order_id}</p>
            <h1>{fill(t('payment.title'), { order: p.order_id })} <StatusBadge status={p.status} /></h1>
            {can('payments.act') && <Actions p={p} done={detail.reload} />}
            <PaymentTimeline paymentId={p.id} reloadKey={`${p.updated_at}|${d.audit.length}|${d.callbacks.length}`} />
            {p.needs_operator && <p className="warn">{withNodes(t('pay.waiting'), { operation: p.pending_operation, since: <Time iso={p.needs_operator_since} /> })} {heldText(p.held, p.currency, t)} {can('payments.act') ? t('pay.resolveAbove') : <><Link to="/attention">{t('pay.seeAttention')}</Link>.</>}</p>}
            <section aria-labelledby="amounts">
              <h2 id="amounts">{t('payment.amounts')}</h2>
              <Facts rows={[
                [t('payment.amount'), <Money amount={p.amount} currency={p.currency} />],
                [t('payment.captured'), <Money amount={p.captured_amount} currency={p.currency} />],
                [t('payment.refunded'), <Money amount={p.refunded_amount} currency={p.currency} />],
                [t('payment.operation'), p.operation], [t('payment.channel'), p.channel], [t('payment.method'), p.method],
                [t('payment.card'), p.card_details ? `${p.card_details.mask ?? ''} ${p.card_details.brand ?? ''} ${p.card_details.expiry ?? ''}` : null],
                [t('payment.payerEmail'), p.payer_email], [t('payment.description'), p.description],
                [t('payment.created'), <Time iso={p.created_at} />], [t('payment.updated'), <Time iso={p.updated_at} />],
                [t('payment.merchant'), <Link to={`/merchants/${p.merchant_id}`}>{p.merchant_id}</Link>], [t('payment.id'), p.id], [t('payment.declineReason'), p.decline_reason],
                [t('payment.connectorReference'), p.connector.reference], ['RRN', p.connector.rrn], [t('payment.approvalCode'), p.connector.approval_code],
                [t('payment.cof'), [p.initiator, p.source, p.sequence].filter(Boolean).join(' / ') || null],
              ]} />
            </section>
            <section aria-labelledby="money">
              <h2 id="money">{t('payment.money')}</h2>
              <Facts rows={[[t('payment.fee'), <Money amount={d.money.fee} currency={p.currency} />], [t('payment.net'), <Money amount={d.money.net_amount} currency={p.currency} />]]} />
              {d.money.entries.length === 0 ? <Empty>{t('pay.noLedger')}</Empty> : (
                <Table label={t('pay.ledgerEntries')}>
                  <thead><tr><th scope="col">{t('pay.col.time')}</th><th scope="col">{t('pay.col.event')}</th><th scope="col">{t('pay.col.account')}</th><th scope="col">{t('pay.col.debitCredit')}</th></tr></thead>
                  <tbody>{d.money.entries.map((e, i) => (
                    <tr key={i}><td><Time iso={e.created_at} /></td><td>{e.event}</td><td><code>{e.account}</code></td><td><Money amount={e.amount} currency={e.currency} /></td></tr>))}
                  </tbody>
                </Table>
              )}
            </section>
            <section aria-labelledby="transactions">
              <h2 id="transactions">{t('payment.transactions')}</h2>
              {d.transactions.length === 0 && !d.risk ? <Empty>{t('pay.noTransaction')}</Empty> : (
                <Table label={t('payment.transactions')}>
                  <thead><tr><th scope="col">{t('pay.col.time')}</th><th scope="col">{t('pay.col.type')}</th><th scope="col">{t('pay.col.status')}</th><th scope="col">{t('pay.col.amount')}</th><th scope="col">{t('pay.col.connectorAnswer')}</th><th scope="col">{t('pay.col.by')}</th></tr></thead>
                  <tbody>
                    {d.risk && <tr><td><Time iso={d.risk.screened_at} /></td><td>{t('pay.riskScreen')}</td><td>{d.risk.action}</td><td>—</td><td>{riskTimelineText(d.risk)}</td><td>—</td></tr>}
                    {d.transactions.map((x) => (
                    <tr key={x.id}>
                      <td><Time iso={x.created_at} /></td><td>{x.type}</td><td><StatusBadge status={x.status} /></td>
                      <td><Money amount={x.amount} currency={p.currency} /></td>
                      <td>{[x.reference && fill(t('pay.ref'), { reference: x.reference }), x.reason, x.resolution && fill(t('pay.resolved'), { resolution: x.resolution }), x.note].filter(Boolean).join(' · ') || '—'}</td>
                      <td>{x.initiated_by?.name ?? '—'}{x.resolved_by ? ` ${fill(t('pay.resolvedBy'), { name: x.resolved_by.name })}` : ''}</td>
                    </tr>))}
                  </tbody>
                </Table>
              )}
            </section>
            <section aria-labelledby="risk">
              <h2 id="risk">{t('payment.risk')}</h2>
              <PaymentRisk risk={d.risk} />
              {can('risk.write') && <ListPaymentValues paymentId={p.id} merchantId={p.merchant_id} />}
            </section>
            <PaymentDisputes paymentId={p.id} merchantId={p.merchant_id} currency={p.currency} captured={/[1-9]/.test(p.captured_amount)} />
            <section aria-labelledby="tds">
              <h2 id="tds">3-D Secure</h2>
              {p.three_ds && Object.keys(p.three_ds).length > 0
                ? <Facts rows={Object.entries(p.three_ds).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])} />
                : <Empty>{t('pay.noThreeDs')}</Empty>}
            </section>
            <section aria-labelledby="callbacks">
              <h2 id="callbacks">{t('payment.callbacks')}</h2>
              <p role="status" className={resent ? 'notice' : 'sr-only'}>{resent ?? ''}</p>
              {d.callbacks.length === 0 ? <Empty>{t('pay.noCallback')}</Empty> : d.callbacks.map((c) => (
                <article key={c.id} className="card" aria-label={fill(t('pay.cb.label'), { event: `${c.event_type}${c.event_status ? ` (${c.event_status})` : ''}` })}>
                  <h3><StatusBadge status={c.status} /> {fill(t('pay.cb.to'), { event: `${c.event_type}${c.event_status ? ` (${c.event_status})` : ''}`, url: c.url })}</h3>
                  <p>{c.state_text}{c.due_at && c.status === 'pending' ? <>; {t('pay.cb.nextAttempt')} {Date.parse(c.due_at) <= Date.now() + 1000 ? t('pay.cb.now') : <Time iso={c.due_at} />}</> : null}.</p>
                  <p>{t('pay.cb.created')} <Time iso={c.created_at} />, {fill(t('pay.cb.attempts'), { n: c.attempts })}{c.delivered_at ? <>, {t('pay.cb.delivered')} <Time iso={c.delivered_at} /></> : null}{c.last_error ? `, ${fill(t('pay.cb.lastError'), { error: c.last_error })}` : ''}</p>
                  {c.attempt_log.length > 0 && (
                    <Table label={fill(t('pay.cb.attemptsOf'), { id: c.id })}>
                      <thead><tr><th scope="col">{t('pay.col.attempted')}</th><th scope="col">HTTP</th><th scope="col">{t('pay.col.outcome')}</th><th scope="col">{t('pay.col.error')}</th><th scope="col">ms</th></tr></thead>
                      <tbody>{c.attempt_log.map((a, i) => <tr key={i}><td><Time iso={a.attempted_at} /></td><td>{a.http_status ?? '—'}</td><td>{a.outcome}</td><td>{a.error ?? '—'}</td><td>{a.duration_ms}</td></tr>)}</tbody>
                    </Table>
                  )}
                  <details><summary>{t('pay.cb.body')}</summary><pre>{c.body}</pre></details>
                  {can('callbacks.resend') && (
                    <ConfirmButton label={t('pay.cb.resend')} title={t('pay.cb.resendTitle')} action={async () => {
                      const r = await call('post', '/admin/v1/callbacks/{id}/resend', { params: { id: c.id } });
                      setResent(t(RESEND_WORDS[r.result]));
                      detail.reload();
                    }} />
                  )}
                </article>
              ))}
            </section>
            <section aria-labelledby="routing">
              <h2 id="routing">{t('payment.routing')}</h2>
              {d.routing ? (
                <>
                  <Facts rows={[
                    ['MID', `${d.routing.mid_name ?? d.routing.mid_id} (${d.routing.connector ?? '?'}, ${d.routing.payment_mode ?? '?'})`], [t('pay.rt.intent'), d.routing.intent],
                    [t('pay.rt.rule'), d.routing.matched_rule ? `${d.routing.rule ?? ''}: ${fill(t('pay.rt.ruleN'), { n: d.routing.matched_rule.index + 1, name: d.routing.matched_rule.name })}${d.routing.share !== null ? `, ${fill(t('pay.rt.share'), { n: d.routing.share + 1 })}` : ''}` : d.routing.rule],
                    [t('pay.rt.order'), d.routing.candidates.join(' → ') || null],
                    [t('pay.rt.recorded'), d.routing.basis === 'recorded' ? t('pay.yes') : d.routing.basis === 'method' ? t('pay.rt.noMethod') : t('pay.rt.noMid')],
                  ]} />
                  {d.routing.scores.length > 0 && (
                    <Table label={t('pay.rt.scores')}>
                      <thead><tr><th scope="col">MID</th><th scope="col">{t('pay.col.score')}</th><th scope="col">{t('pay.col.outcomes')}</th></tr></thead>
                      <tbody>{d.routing.scores.map((x) => <tr key={x.mid_id}><td>{x.mid_id}</td><td>{(x.score * 100).toFixed(1)} %{x.observed ? '' : ` ${t('pay.rt.default')}`}</td><td>{x.outcomes.toFixed(1)}</td></tr>)}</tbody>
                    </Table>
                  )}
                  {d.routing.explored !== null && <p>{d.routing.explored ? t('pay.rt.explored') : t('pay.rt.byScore')}</p>}
                  {d.routing.attempts.length > 0 && (
                    <Table label={t('pay.rt.attempts')}>
                      <thead><tr><th scope="col">MID</th><th scope="col">{t('pay.col.why')}</th><th scope="col">{t('pay.col.outcome')}</th><th scope="col">{t('pay.col.declineCode')}</th><th scope="col">{t('pay.col.retry')}</th><th scope="col">{t('pay.col.stopped')}</th></tr></thead>
                      <tbody>{d.routing.attempts.map((a) => <tr key={a.trans_id}><td>{a.mid_id}</td><td>{a.why}</td><td>{a.outcome ?? '—'}</td><td>{a.code ?? '—'}</td><td>{a.retry ?? '—'}</td><td>{a.stop ?? '—'}</td></tr>)}</tbody>
                    </Table>
                  )}
                  {d.routing.considered.length > 0 && (
                    <Table label={t('pay.rt.considered')}>
                      <thead><tr><th scope="col">MID</th><th scope="col">{t('pay.col.priority')}</th><th scope="col">{t('pay.col.eligible')}</th><th scope="col">{t('pay.col.inOrder')}</th><th scope="col">{t('pay.col.whyNot')}</th></tr></thead>
                      <tbody>{d.routing.considered.map((m) => <tr key={m.mid_id}><td>{m.mid_id}</td><td>{m.priority}</td><td>{m.eligible ? t('pay.yes') : t('pay.no')}</td><td>{m.candidate ? t('pay.yes') : t('pay.no')}</td><td>{m.reason ?? '—'}</td></tr>)}</tbody>
                    </Table>
                  )}
                </>
              ) : <Empty>{t('pay.rt.none')}</Empty>}
            </section>
            <section aria-labelledby="audit">
              <h2 id="audit">{t('payment.audit')}</h2>
              {d.audit.length === 0 ? <Empty>{t('pay.noAudit')}</Empty> : (
                <Table label={t('pay.auditLabel')}>
                  <thead><tr><th scope="col">{t('pay.col.time')}</th><th scope="col">{t('pay.col.user')}</th><th scope="col">{t('pay.col.action')}</th><th scope="col">{t('pay.col.details')}</th></tr></thead>
                  <tbody>{d.audit.map((a) => <tr key={a.id}><td><Time iso={a.at} /></td><td>{a.user_name}</td><td>{a.action}</td><td><code>{JSON.stringify(a.details ?? a.after ?? null)}</code></td></tr>)}</tbody>
                </Table>
              )}
            </section>
          </>
        );
      }}
    </Show>
  );
}
