import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { call, type PaymentDetail } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton, Empty, Field, Money, Show, StatusBadge, Table, Time, useLoad } from '../ui';
import { Resolve, heldText } from './NeedsAttention';

type P = PaymentDetail['payment'];

type Allowed = P['allowed_actions'][number];

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return <dl className="facts">{rows.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v ?? '—'}</dd></div>)}</dl>;
}

/** Capture or refund: an amount up to the API's max_amount, editable only when the action may take part of it. */
function AmountAction({ kind, payment, allowed, done }: { kind: 'capture' | 'refund'; payment: P; allowed: Allowed; done: () => void }) {
  const max = allowed.max_amount ?? payment.amount;
  const [amount, setAmount] = useState(max);
  const path = kind === 'capture' ? '/admin/v1/payments/{id}/capture' as const : '/admin/v1/payments/{id}/refund' as const;
  // A refund of a held authorization is its reversal: the whole amount, nothing to type.
  const label = kind === 'capture' ? 'Capture' : payment.status === 'pending' ? 'Reverse' : 'Refund';
  return (
    <ConfirmButton label={`${label}…`} confirmLabel={label} title={`${label} payment ${payment.order_id}`} danger={kind === 'refund'}
      action={async () => {
        const answer = await call('post', path, { params: { id: payment.id }, body: allowed.partial ? { amount } : {} });
        if (answer.result === 'declined' || answer.result === 'failed') throw new Error(`The connector answered ${answer.result}${answer.reason ? `: ${answer.reason}` : ''}.`);
        done();
      }}>
      {allowed.partial
        ? <>
            <p>Up to <Money amount={max} currency={payment.currency} />.</p>
            <Field label={`Amount to ${label.toLowerCase()} (${payment.currency})`}>{(id) => <input id={id} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />}</Field>
          </>
        : <p>The whole <Money amount={max} currency={payment.currency} /> is released.</p>}
    </ConfirmButton>
  );
}

/** The actions the payment's state allows now, as the API lists them (allowed_actions); the role decides who sees them. */
function Actions({ p, done }: { p: P; done: () => void }) {
  const of = (action: Allowed['action']) => p.allowed_actions.find((a) => a.action === action);
  const [capture, refund, voiding, resolve] = [of('capture'), of('refund'), of('void'), of('resolve')];
  if (p.allowed_actions.length === 0) return null;
  return (
    <section aria-label="Actions" className="actions">
      {capture && <AmountAction kind="capture" payment={p} allowed={capture} done={done} />}
      {refund && <AmountAction kind="refund" payment={p} allowed={refund} done={done} />}
      {voiding && (
        <ConfirmButton label="Void…" confirmLabel="Void" title={`Void payment ${p.order_id}`} danger
          action={async () => { await call('post', '/admin/v1/payments/{id}/void', { params: { id: p.id } }); done(); }}>
          <p>The whole <Money amount={voiding.max_amount ?? p.amount} currency={p.currency} /> is voided.</p>
        </ConfirmButton>
      )}
      {resolve && <Resolve id={p.id} orderId={p.order_id} done={done} />}
    </section>
  );
}

export function PaymentPage() {
  const { id = '' } = useParams();
  const can = useCan();
  const detail = useLoad(() => call('get', '/admin/v1/payments/{id}', { params: { id } }), id);
  return (
    <Show loaded={detail} what="the payment">
      {(d) => {
        const p = d.payment;
        return (
          <>
            <p className="crumbs"><Link to="/payments">Payments</Link> / {p.order_id}</p>
            <h1>Payment {p.order_id} <StatusBadge status={p.status} /></h1>
            {can('payments.act') && <Actions p={p} done={detail.reload} />}
            {p.needs_operator && <p className="warn">An operation ({p.pending_operation}) is waiting for an operator since <Time iso={p.needs_operator_since} />. {heldText(p.held, p.currency)} {can('payments.act') ? 'Resolve it above once the acquirer has told you what happened' : <Link to="/attention">See Needs attention</Link>}.</p>}
            <section aria-labelledby="amounts">
              <h2 id="amounts">Amounts</h2>
              <Facts rows={[
                ['Amount', <Money amount={p.amount} currency={p.currency} />],
                ['Captured', <Money amount={p.captured_amount} currency={p.currency} />],
                ['Refunded', <Money amount={p.refunded_amount} currency={p.currency} />],
                ['Operation', p.operation], ['Channel', p.channel], ['Method', p.method],
                ['Card', p.card_details ? `${p.card_details.mask ?? ''} ${p.card_details.brand ?? ''} ${p.card_details.expiry ?? ''}` : null],
                ['Payer e-mail', p.payer_email], ['Description', p.description],
                ['Created', <Time iso={p.created_at} />], ['Updated', <Time iso={p.updated_at} />],
                ['Merchant', <Link to={`/merchants/${p.merchant_id}`}>{p.merchant_id}</Link>], ['Payment id', p.id], ['Decline reason', p.decline_reason],
                ['Connector reference', p.connector.reference], ['RRN', p.connector.rrn], ['Approval code', p.connector.approval_code],
                ['Initiator / source / sequence', [p.initiator, p.source, p.sequence].filter(Boolean).join(' / ') || null],
              ]} />
            </section>
            <section aria-labelledby="transactions">
              <h2 id="transactions">Transactions</h2>
              {d.transactions.length === 0 ? <Empty>No transaction yet.</Empty> : (
                <Table label="Transactions">
                  <thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Connector answer</th><th scope="col">By</th></tr></thead>
                  <tbody>{d.transactions.map((t) => (
                    <tr key={t.id}>
                      <td><Time iso={t.created_at} /></td><td>{t.type}</td><td><StatusBadge status={t.status} /></td>
                      <td><Money amount={t.amount} currency={p.currency} /></td>
                      <td>{[t.reference && `ref ${t.reference}`, t.reason, t.resolution && `resolved ${t.resolution}`, t.note].filter(Boolean).join(' · ') || '—'}</td>
                      <td>{t.initiated_by?.name ?? '—'}{t.resolved_by ? ` (resolved by ${t.resolved_by.name})` : ''}</td>
                    </tr>))}
                  </tbody>
                </Table>
              )}
            </section>
            <section aria-labelledby="tds">
              <h2 id="tds">3-D Secure</h2>
              {p.three_ds && Object.keys(p.three_ds).length > 0
                ? <Facts rows={Object.entries(p.three_ds).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])} />
                : <Empty>No 3-D Secure data.</Empty>}
            </section>
            <section aria-labelledby="callbacks">
              <h2 id="callbacks">Callbacks</h2>
              {d.callbacks.length === 0 ? <Empty>No callback sent for this payment.</Empty> : d.callbacks.map((c) => (
                <article key={c.id} className="card">
                  <h3><StatusBadge status={c.status} /> {c.url}</h3>
                  <p>Created <Time iso={c.created_at} />, {c.attempts} attempt(s){c.delivered_at ? <>, delivered <Time iso={c.delivered_at} /></> : null}{c.last_error ? `, last error: ${c.last_error}` : ''}</p>
                  {c.attempt_log.length > 0 && (
                    <Table label={`Attempts of callback ${c.id}`}>
                      <thead><tr><th scope="col">Attempted</th><th scope="col">HTTP</th><th scope="col">Outcome</th><th scope="col">Error</th><th scope="col">ms</th></tr></thead>
                      <tbody>{c.attempt_log.map((a, i) => <tr key={i}><td><Time iso={a.attempted_at} /></td><td>{a.http_status ?? '—'}</td><td>{a.outcome}</td><td>{a.error ?? '—'}</td><td>{a.duration_ms}</td></tr>)}</tbody>
                    </Table>
                  )}
                  <details><summary>Body as sent</summary><pre>{c.body}</pre></details>
                  {can('callbacks.resend') && (
                    <ConfirmButton label="Resend" title="Send this callback now?" action={async () => { await call('post', '/admin/v1/callbacks/{id}/resend', { params: { id: c.id } }); detail.reload(); }} />
                  )}
                </article>
              ))}
            </section>
            <section aria-labelledby="routing">
              <h2 id="routing">Routing decision</h2>
              {d.routing ? (
                <>
                  <Facts rows={[
                    ['MID', `${d.routing.mid_name ?? d.routing.mid_id} (${d.routing.connector ?? '?'}, ${d.routing.payment_mode ?? '?'})`], ['Intent', d.routing.intent],
                    ['Rule', d.routing.matched_rule ? `${d.routing.rule ?? ''}: rule ${d.routing.matched_rule.index + 1} "${d.routing.matched_rule.name}"${d.routing.share !== null ? `, share ${d.routing.share + 1}` : ''}` : d.routing.rule],
                    ['Attempt order', d.routing.candidates.join(' → ') || null],
                    ['Recorded at payment time', d.routing.recorded ? 'yes' : 'no (reconstructed)'],
                  ]} />
                  {d.routing.scores.length > 0 && (
                    <Table label="Success-rate scores when routed">
                      <thead><tr><th scope="col">MID</th><th scope="col">Score</th><th scope="col">Outcomes</th></tr></thead>
                      <tbody>{d.routing.scores.map((x) => <tr key={x.mid_id}><td>{x.mid_id}</td><td>{(x.score * 100).toFixed(1)} %{x.observed ? '' : ' (default)'}</td><td>{x.outcomes.toFixed(1)}</td></tr>)}</tbody>
                    </Table>
                  )}
                  {d.routing.explored !== null && <p>{d.routing.explored ? 'This payment explored: its first MID was drawn at random.' : 'MIDs ordered by score.'}</p>}
                  {d.routing.attempts.length > 0 && (
                    <Table label="Attempts on MIDs">
                      <thead><tr><th scope="col">MID</th><th scope="col">Why</th><th scope="col">Outcome</th><th scope="col">Decline code</th><th scope="col">Retry</th><th scope="col">Stopped because</th></tr></thead>
                      <tbody>{d.routing.attempts.map((a) => <tr key={a.trans_id}><td>{a.mid_id}</td><td>{a.why}</td><td>{a.outcome ?? '—'}</td><td>{a.code ?? '—'}</td><td>{a.retry ?? '—'}</td><td>{a.stop ?? '—'}</td></tr>)}</tbody>
                    </Table>
                  )}
                  {d.routing.considered.length > 0 && (
                    <Table label="MIDs considered">
                      <thead><tr><th scope="col">MID</th><th scope="col">Priority</th><th scope="col">Eligible</th><th scope="col">In the attempt order</th><th scope="col">Why not</th></tr></thead>
                      <tbody>{d.routing.considered.map((m) => <tr key={m.mid_id}><td>{m.mid_id}</td><td>{m.priority}</td><td>{m.eligible ? 'yes' : 'no'}</td><td>{m.candidate ? 'yes' : 'no'}</td><td>{m.reason ?? '—'}</td></tr>)}</tbody>
                    </Table>
                  )}
                </>
              ) : <Empty>No MID was chosen.</Empty>}
            </section>
            <section aria-labelledby="audit">
              <h2 id="audit">Audit entries</h2>
              {d.audit.length === 0 ? <Empty>No operator acted on this payment.</Empty> : (
                <Table label="Audit entries of the payment">
                  <thead><tr><th scope="col">Time</th><th scope="col">User</th><th scope="col">Action</th><th scope="col">Details</th></tr></thead>
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
