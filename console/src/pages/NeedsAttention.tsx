import { useState } from 'react';
import { Link } from 'react-router';
import { call } from '../api/client';
import { useCan } from '../session';
import { useModeQuery } from '../mode';
import { fill, translatorFor, useT, type Translate } from '../i18n';
import { ConfirmButton, Empty, Field, Money, Show, StatusBadge, Table, Time, useLoad } from '../ui';

export function Resolve({ id, orderId, done }: { id: string; orderId: string; done: () => void }) {
  const t = useT();
  const [outcome, setOutcome] = useState<'settled' | 'declined'>('settled');
  const [note, setNote] = useState('');
  return (
    <ConfirmButton label={t('disputes.attention.resolve')} confirmLabel={t('disputes.attention.resolveConfirm')} title={fill(t('disputes.attention.resolveTitle'), { order: orderId })}
      action={async () => { await call('post', '/admin/v1/payments/{id}/resolve', { params: { id }, body: { outcome, note } }); done(); }}>
      <p>{t('disputes.attention.checkFirst')}</p>
      <Field label={t('disputes.attention.acquirerSays')}>{(fid) => (
        <select id={fid} value={outcome} onChange={(e) => setOutcome(e.target.value as 'settled' | 'declined')}>
          <option value="settled">{t('disputes.attention.settled')}</option>
          <option value="declined">{t('disputes.attention.declined')}</option>
        </select>)}
      </Field>
      <Field label={t('disputes.attention.note')}>{(fid) => <textarea id={fid} required value={note} onChange={(e) => setNote(e.target.value)} />}</Field>
    </ConfirmButton>
  );
}

type Held = { reason: string; acquirer_outcome: string | null; acquirer_reference: string | null; mismatches: { field: string; expected: string; reported: string }[] };

/** Why an operation waits for an operator, in the words an operator checks with the acquirer (in English without `t`). */
export function heldText(held: Held | null | undefined, currency: string, t: Translate = translatorFor('en')): string {
  if (!held) return '';
  if (held.reason !== 'integrity') return t('disputes.attention.answerLost');
  const unit = (field: string) => (field === 'amount' ? ` ${currency}` : '');
  const facts = held.mismatches.map((m) => fill(t('disputes.attention.mismatch'), { field: m.field, reported: `${m.reported}${unit(m.field)}`, expected: `${m.expected}${unit(m.field)}` }));
  const answer = [held.acquirer_outcome && fill(t('disputes.attention.answered'), { outcome: held.acquirer_outcome }), held.acquirer_reference && fill(t('disputes.attention.reference'), { reference: held.acquirer_reference })].filter(Boolean).join(', ');
  return answer ? fill(t('disputes.attention.reportedBut'), { answer, facts: facts.join('; ') }) : fill(t('disputes.attention.reported'), { facts: facts.join('; ') });
}

export function NeedsAttention() {
  const t = useT();
  const can = useCan();
  const modeQuery = useModeQuery();
  const list = useLoad(() => call('get', '/admin/v1/payments/needs-operator', { query: modeQuery }), `attention|${modeQuery.mode ?? ''}`);
  return (
    <>
      <h1>{t('disputes.attention.title')}</h1>
      <p className="sub">{t('disputes.attention.sub')}</p>
      <Show loaded={list} what="payments waiting for an operator">
        {(d) => d.payments.length === 0 ? <Empty>{t('disputes.attention.none')}</Empty> : (
          <Table label={t('disputes.attention.table')}>
            <thead><tr><th scope="col">{t('disputes.attention.colSince')}</th><th scope="col">{t('disputes.colPayment')}</th><th scope="col">{t('disputes.attention.colOperation')}</th><th scope="col">{t('disputes.colWhy')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('col.amount')}</th>{can('payments.act') && <th scope="col">{t('common.action')}</th>}</tr></thead>
            <tbody>{d.payments.map((p) => (
              <tr key={p.id}>
                <td><Time iso={p.since} /></td>
                <td><Link to={`/payments/${p.id}`}>{p.order_id}</Link></td>
                <td>{p.operation}</td>
                <td>{heldText(p.held, p.currency, t)}</td>
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
