/**
 * A payment's timeline (issue 31 item 6) and its internal notes (item 10), read from GET
 * /admin/v1/payments/{id}/timeline: the order's tries, then every step in time order, an attempt's steps grouped
 * under it (routing, 3-D Secure, the acquirer's answer), the status and 3-D Secure in words.
 */
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { call, type Answer } from '../api/client';
import { useCan } from '../session';
import { ErrorNote, Field, Money, Show, Time, useLoad, useSubmit } from '../ui';
import { fill, useT, type Translate } from '../i18n';

type Timeline = Answer<'/admin/v1/payments/{id}/timeline', 'get'>;
type Step = Timeline['steps'][number];

/** The reasons an operator picks for a refund (the API keeps the text); the detail is optional. */
export const REFUND_REASONS = ['Customer request', 'Duplicate payment', 'Goods or service not delivered', 'Suspected fraud', 'Goodwill', 'Other'] as const;

/** Each reason's words in the console's language (the API keeps the English text). */
const REASON_KEY = {
  'Customer request': 'pay.reason.customer', 'Duplicate payment': 'pay.reason.duplicate', 'Goods or service not delivered': 'pay.reason.notDelivered',
  'Suspected fraud': 'pay.reason.fraud', Goodwill: 'pay.reason.goodwill', Other: 'pay.reason.other',
} as const satisfies Record<(typeof REFUND_REASONS)[number], string>;

/** A refund's reason: one of REFUND_REASONS and an optional detail, joined as "Reason: detail". */
export function RefundReason({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const t = useT();
  const [kind, setKind] = useState('');
  const [detail, setDetail] = useState('');
  const update = (k: string, d: string) => { setKind(k); setDetail(d); onChange(k ? (d.trim() ? `${k}: ${d.trim()}` : k) : d.trim()); };
  return (
    <>
      <Field label={t('pay.reason.label')}>
        {(id) => <select id={id} value={kind} onChange={(e) => update(e.target.value, detail)}><option value="">{t('pay.reason.none')}</option>{REFUND_REASONS.map((r) => <option key={r} value={r}>{t(REASON_KEY[r])}</option>)}</select>}
      </Field>
      <Field label={t('pay.reason.details')}>{(id) => <input id={id} maxLength={150} value={detail} data-reason={value} onChange={(e) => update(kind, e.target.value)} />}</Field>
    </>
  );
}

function StepItem({ s }: { s: Step }) {
  const t = useT();
  return (
    <li className={`step step-${s.kind}`}>
      <Time iso={s.at} /> <span className="step-kind">{kindText(t, s.kind)}</span> {s.text}{s.by ? <span className="sub"> — {s.by}</span> : null}
    </li>
  );
}

const KIND_KEY = {
  created: 'pay.kind.created', risk: 'pay.kind.risk', routing: 'pay.kind.routing', acquirer: 'pay.kind.acquirer', money: 'pay.kind.money', callback: 'pay.kind.callback', operator: 'pay.kind.operator', note: 'pay.kind.note', dispute: 'pay.kind.dispute',
} as const satisfies Record<Exclude<Step['kind'], 'three_ds'>, string>;

/** A step's kind in words; 3-D Secure is a name, the same in every language. */
const kindText = (t: Translate, kind: Step['kind']): string => (kind === 'three_ds' ? '3-D Secure' : t(KIND_KEY[kind]));

/** Steps in time order; an attempt's steps together under it, where its first step falls. */
function Steps({ t }: { t: Timeline }) {
  const tr = useT();
  const out: ReactNode[] = [];
  const shown = new Set<number>();
  t.steps.forEach((s, i) => {
    if (s.attempt === null) { out.push(<StepItem key={i} s={s} />); return; }
    if (shown.has(s.attempt)) return;
    shown.add(s.attempt);
    const a = t.attempts.find((x) => x.seq === s.attempt);
    out.push(
      <li key={i} className="attempt">
        <strong>{a ? fill(tr('pay.tl.attemptOn'), { n: s.attempt, mid: `${a.mid_name ?? a.mid_id ?? tr('pay.tl.provider')}${a.connector ? ` (${a.connector})` : ''}`, status: a.status }) : fill(tr('pay.tl.attempt'), { n: s.attempt })}</strong>
        <ol aria-label={fill(tr('pay.tl.stepsOf'), { n: s.attempt })}>{t.steps.filter((x) => x.attempt === s.attempt).map((x, j) => <StepItem key={j} s={x} />)}</ol>
      </li>,
    );
  });
  return <ol className="timeline" aria-label={tr('pay.tl.steps')}>{out}</ol>;
}

function NoteForm({ paymentId, done }: { paymentId: string; done: () => void }) {
  const t = useT();
  const [note, setNote] = useState('');
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    await call('post', '/admin/v1/payments/{id}/notes', { params: { id: paymentId }, body: { note } });
    setNote('');
    setSaved(true);
    done();
  });
  return (
    <form onSubmit={(e) => void submit(e)} aria-label={t('pay.tl.noteForm')} className="note-form">
      <Field label={t('pay.tl.noteLabel')}>{(id) => <textarea id={id} rows={2} maxLength={2000} required value={note} onChange={(e) => { setNote(e.target.value); setSaved(false); }} />}</Field>
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" disabled={busy || !note.trim()}>{t('pay.tl.addNote')}</button>{saved && <span role="status">{t('pay.tl.noteAdded')}</span>}</div>
    </form>
  );
}

export function PaymentTimeline({ paymentId, reloadKey }: { paymentId: string; reloadKey: string }) {
  const tr = useT();
  const can = useCan();
  const timeline = useLoad(() => call('get', '/admin/v1/payments/{id}/timeline', { params: { id: paymentId } }), `${paymentId}|${reloadKey}`);
  return (
    <section aria-labelledby="timeline" className="card">
      <h2 id="timeline">{tr('pay.tl.title')}</h2>
      <Show loaded={timeline} what="the timeline">
        {(t) => (
          <>
            <p className="status-words"><strong>{t.status.words}.</strong> {t.status.explanation}</p>
            {t.three_ds && <p>{t.three_ds}.</p>}
            {t.order.length > 1 && (
              <div>
                <h3>{tr('pay.tl.tries')}</h3>
                <ol aria-label={tr('pay.tl.triesLabel')}>{t.order.map((o) => (
                  <li key={o.payment_id}>
                    <Time iso={o.created_at} /> <Money amount={o.amount} currency={o.currency} />: {o.status.words}
                    {o.current ? ` ${tr('pay.tl.thisPayment')}` : <> — <Link to={`/payments/${o.payment_id}`}>{tr('pay.tl.open')}</Link></>}
                  </li>))}
                </ol>
              </div>
            )}
            <Steps t={t} />
          </>
        )}
      </Show>
      {can('payments.note') && <NoteForm paymentId={paymentId} done={timeline.reload} />}
    </section>
  );
}
