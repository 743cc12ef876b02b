import { useState } from 'react';
import { Link } from 'react-router';
import { call } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton, Empty, Field, Money, Show, StatusBadge, Table, Time, useLoad } from '../ui';

export function Resolve({ id, orderId, done }: { id: string; orderId: string; done: () => void }) {
  const [outcome, setOutcome] = useState<'settled' | 'declined'>('settled');
  const [note, setNote] = useState('');
  return (
    <ConfirmButton label="Resolve…" confirmLabel="Resolve" title={`Resolve payment ${orderId}`}
      action={async () => { await call('post', '/admin/v1/payments/{id}/resolve', { params: { id }, body: { outcome, note } }); done(); }}>
      <p>Check with the acquirer first: this records what it says happened.</p>
      <Field label="The acquirer says the operation">{(fid) => (
        <select id={fid} value={outcome} onChange={(e) => setOutcome(e.target.value as 'settled' | 'declined')}>
          <option value="settled">went through (settled)</option>
          <option value="declined">did not go through (declined)</option>
        </select>)}
      </Field>
      <Field label="Note (who you checked with, their reference)">{(fid) => <textarea id={fid} required value={note} onChange={(e) => setNote(e.target.value)} />}</Field>
    </ConfirmButton>
  );
}

type Held = { reason: string; acquirer_outcome: string | null; acquirer_reference: string | null; mismatches: { field: string; expected: string; reported: string }[] };

/** Why an operation waits for an operator, in the words an operator checks with the acquirer. */
export function heldText(held: Held | null | undefined, currency: string): string {
  if (!held) return '';
  if (held.reason !== 'integrity') return 'The acquirer\'s answer never came.';
  const facts = held.mismatches.map((m) => `${m.field} ${m.reported}${m.field === 'amount' ? ` ${currency}` : ''} where the payment has ${m.expected}${m.field === 'amount' ? ` ${currency}` : ''}`);
  const answer = [held.acquirer_outcome && `answered ${held.acquirer_outcome}`, held.acquirer_reference && `reference ${held.acquirer_reference}`].filter(Boolean).join(', ');
  return `The acquirer ${answer ? `${answer} but ` : ''}reported ${facts.join('; ')}.`;
}

export function NeedsAttention() {
  const can = useCan();
  const list = useLoad(() => call('get', '/admin/v1/payments/needs-operator', { query: {} }), 'attention');
  return (
    <>
      <h1>Needs attention</h1>
      <p className="sub">Operations left in flight at a connector that the gateway could not settle by itself, longest waiting first.</p>
      <Show loaded={list} what="payments waiting for an operator">
        {(d) => d.payments.length === 0 ? <Empty>Nothing is waiting for an operator.</Empty> : (
          <Table label="Payments waiting for an operator">
            <thead><tr><th scope="col">Since</th><th scope="col">Payment</th><th scope="col">Operation</th><th scope="col">Why</th><th scope="col">Status</th><th scope="col">Amount</th>{can('payments.act') && <th scope="col">Action</th>}</tr></thead>
            <tbody>{d.payments.map((p) => (
              <tr key={p.id}>
                <td><Time iso={p.since} /></td>
                <td><Link to={`/payments/${p.id}`}>{p.order_id}</Link></td>
                <td>{p.operation}</td>
                <td>{heldText(p.held, p.currency)}</td>
                <td><StatusBadge status={p.status} /></td>
                <td><Money amount={p.amount} currency={p.currency} /></td>
                {can('payments.act') && <td><Resolve id={p.id} orderId={p.order_id} done={list.reload} /></td>}
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
    </>
  );
}
