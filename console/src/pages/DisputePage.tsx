/**
 * One dispute (issue 29): its facts and deadline (on its merchant's clock), the payment it is on, its history, its
 * evidence (files: PDF, PNG, JPEG up to the API's limits; a defence text), submitting the defence, accepting it,
 * and moving it by another event of the transition table. The API decides; the screen shows its refusals.
 */
import { useRef, useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { buildUrl, call, type Answer } from '../api/client';
import { useCan } from '../session';
import { shortId } from './Disputes';
import { fill, useT, type Key } from '../i18n';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, Money, Show, StatusBadge, Table, Time, errorsByField, useLoad, useSubmit } from '../ui';

type Dispute = Answer<'/admin/v1/disputes/{id}', 'get'>;

const LIVE = ['open', 'evidence_required', 'evidence_submitted'];
const DEFENSIBLE = ['open', 'evidence_required'];
/** The events an operator records from the acquirer's word (the table refuses those that do not apply: 409). */
const RECORDED_EVENTS = ['won', 'lost', 'chargeback_reversed', 'second_chargeback', 'prearbitration_won', 'prearbitration_lost', 'arbitration', 'defense_period_ended', 'information_supplied'];
const DEADLINE_TEXT: Record<string, Key> = { none: 'disputes.page.deadlineNone', later: 'disputes.page.deadlineLater', due_soon: 'disputes.page.deadlineDueSoon', overdue: 'disputes.page.deadlineOverdue' };

function Facts({ d }: { d: Dispute }) {
  const t = useT();
  const deadline = DEADLINE_TEXT[d.deadline];
  const rows: [string, ReactNode][] = [
    [t('col.amount'), <Money amount={d.amount} currency={d.currency} />], [t('disputes.stage'), d.stage], [t('disputes.reasonCode'), `${d.reason_code ?? '—'} (${d.category})`],
    [t('disputes.respondBy'), <><Time iso={d.due_at} /> <StatusBadge status={d.deadline} /> {deadline ? t(deadline) : d.deadline}</>],
    [t('disputes.bankDate'), d.bank_date], [t('disputes.colSource'), d.source], [t('disputes.page.acquirerRef'), d.external_ref],
    [t('disputes.colPayment'), <Link to={`/payments/${d.payment_id}`}>{d.payment_id}</Link>], [t('col.merchant'), <Link to={`/merchants/${d.merchant_id}`}>{d.merchant_id}</Link>],
    [t('col.created'), <Time iso={d.created_at} />], [t('disputes.page.updated'), <Time iso={d.updated_at} />],
  ];
  return <dl className="facts">{rows.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v ?? '—'}</dd></div>)}</dl>;
}

/** The file as base64, for the API's JSON body. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function Evidence({ d, live, changed }: { d: Dispute; live: boolean; changed: () => void }) {
  const t = useT();
  const can = useCan();
  const list = useLoad(() => call('get', '/admin/v1/disputes/{id}/evidence', { params: { id: d.id } }), `${d.id}:${d.updated_at}`);
  const fileInput = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [note, setNote] = useState('');
  const upload = useSubmit(async () => {
    const file = fileInput.current?.files?.[0];
    if (!file) throw new Error(t('disputes.page.chooseFile'));
    await call('post', '/admin/v1/disputes/{id}/evidence', { params: { id: d.id }, body: { file_name: file.name, content_base64: await base64Of(file) } });
    if (fileInput.current) fileInput.current.value = '';
    list.reload();
  });
  const addText = useSubmit(async () => {
    await call('post', '/admin/v1/disputes/{id}/evidence', { params: { id: d.id }, body: { text } });
    setText('');
    list.reload();
  });
  const pending = list.data?.filter((e) => e.submitted_at === null).length ?? 0;
  return (
    <section aria-labelledby="evidence">
      <h2 id="evidence">{t('disputes.page.evidence')}</h2>
      <Show loaded={list} what="the evidence">
        {(items) => items.length === 0 ? <Empty>{t('disputes.page.noEvidence')}</Empty> : (
          <Table label={t('disputes.page.evidenceTable')}>
            <thead><tr><th scope="col">{t('disputes.page.colAdded')}</th><th scope="col">{t('disputes.page.colWhat')}</th><th scope="col">{t('disputes.page.colType')}</th><th scope="col">{t('disputes.page.colSize')}</th><th scope="col">{t('disputes.page.colBy')}</th><th scope="col">{t('disputes.page.colSubmitted')}</th></tr></thead>
            <tbody>{items.map((e) => (
              <tr key={e.id}>
                <td><Time iso={e.created_at} /></td>
                <td><a href={buildUrl('/admin/v1/disputes/{id}/evidence/{evidenceId}', { id: d.id, evidenceId: e.id })}>{e.file_name ?? (e.kind === 'text' ? t('disputes.page.defenceText') : e.id)}</a></td>
                <td>{e.content_type}</td><td>{fill(t('disputes.page.bytes'), { n: e.size.toLocaleString() })}</td><td>{e.created_by}</td><td>{e.submitted_at ? <Time iso={e.submitted_at} /> : t('disputes.page.notYet')}</td>
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
      {can('payments.act') && live && (
        <div className="card">
          <form className="inline" aria-label={t('disputes.page.uploadForm')} onSubmit={(e) => void upload.submit(e)}>
            <Field label={t('disputes.page.fileLabel')}>{(id) => <input id={id} ref={fileInput} type="file" accept="application/pdf,image/png,image/jpeg" />}</Field>
            <button type="submit" disabled={upload.busy}>{upload.busy ? t('disputes.page.uploading') : t('disputes.page.upload')}</button>
          </form>
          {upload.error && <ErrorNote error={upload.error} />}
          <FieldErrors.Provider value={errorsByField(addText.error)}>
            <form aria-label={t('disputes.page.addTextForm')} onSubmit={(e) => void addText.submit(e)}>
              <Field label={t('disputes.page.defenceText')} path="text">{(id, aria) => <textarea id={id} {...aria} rows={5} value={text} onChange={(e) => setText(e.target.value)} />}</Field>
              <div className="actions"><button type="submit" disabled={addText.busy || !text.trim()}>{t('disputes.page.addText')}</button></div>
            </form>
          </FieldErrors.Provider>
          {DEFENSIBLE.includes(d.status) && (
            <div className="actions">
              <Field label={t('disputes.page.submissionNote')}>{(id) => <input id={id} value={note} onChange={(e) => setNote(e.target.value)} placeholder={t('disputes.page.submissionPlaceholder')} />}</Field>
              <ConfirmButton label={t('disputes.page.submit')} confirmLabel={t('disputes.page.submitConfirm')} title={t('disputes.page.submitTitle')} disabled={pending === 0}
                action={async () => { await call('post', '/admin/v1/disputes/{id}/submit', { params: { id: d.id }, body: note ? { note } : {} }); changed(); }}>
                <p>{fill(t('disputes.page.submitExplain'), { n: pending })}</p>
              </ConfirmButton>
            </div>
          )}
        </div>
      )}
    </section>
  );
}

function Acts({ d, changed }: { d: Dispute; changed: () => void }) {
  const t = useT();
  const [accept1, accept2] = t('disputes.page.acceptExplain').split('{amount}');
  const [event, setEvent] = useState(RECORDED_EVENTS[0]!);
  const [note, setNote] = useState('');
  const record = useSubmit(async () => {
    await call('post', '/admin/v1/disputes/{id}/events', { params: { id: d.id }, body: { event, ...(note ? { note } : {}) } });
    setNote('');
    changed();
  });
  return (
    <section aria-labelledby="acts" className="card">
      <h2 id="acts">{t('disputes.page.decide')}</h2>
      {LIVE.includes(d.status) && d.stage !== 'inquiry' && (
        <ConfirmButton label={t('disputes.page.accept')} confirmLabel={t('disputes.page.acceptConfirm')} title={t('disputes.page.acceptTitle')} danger
          action={async () => { await call('post', '/admin/v1/disputes/{id}/events', { params: { id: d.id }, body: { event: 'accept' } }); changed(); }}>
          <p>{accept1}<Money amount={d.amount} currency={d.currency} />{accept2}</p>
        </ConfirmButton>
      )}
      <form className="inline" aria-label={t('disputes.page.recordForm')} onSubmit={(e) => void record.submit(e)}>
        <Field label={t('disputes.page.acquirerSays')}>{(id) => <select id={id} value={event} onChange={(e) => setEvent(e.target.value)}>{RECORDED_EVENTS.map((v) => <option key={v} value={v}>{v.replace(/_/g, ' ')}</option>)}</select>}</Field>
        <Field label={t('disputes.page.note')}>{(id) => <input id={id} value={note} onChange={(e) => setNote(e.target.value)} />}</Field>
        <button type="submit" disabled={record.busy}>{t('disputes.page.record')}</button>
      </form>
      {record.error && <ErrorNote error={record.error} />}
    </section>
  );
}

export function DisputePage() {
  const t = useT();
  const { id = '' } = useParams();
  const can = useCan();
  const detail = useLoad(() => call('get', '/admin/v1/disputes/{id}', { params: { id } }), id);
  return (
    <Show loaded={detail} what="the dispute">
      {(d) => (
        <>
          <p className="crumbs"><Link to="/disputes">{t('disputes.title')}</Link> / {shortId(d.id)}</p>
          <h1>{t('disputes.colDispute')} <StatusBadge status={d.status} /></h1>
          {d.deadline === 'due_soon' || d.deadline === 'overdue'
            ? <p className="warn" role="status">{t(d.deadline === 'overdue' ? 'disputes.page.deadlinePassed' : 'disputes.page.deadlineSoon')} <Time iso={d.due_at} />. {t('disputes.page.defendOrAccept')}</p>
            : null}
          <Facts d={d} />
          <Evidence d={d} live={LIVE.includes(d.status)} changed={detail.reload} />
          {can('payments.act') && <Acts d={d} changed={detail.reload} />}
          <section aria-labelledby="history">
            <h2 id="history">{t('disputes.page.history')}</h2>
            <Table label={t('disputes.page.historyTable')}>
              <thead><tr><th scope="col">{t('disputes.page.colTime')}</th><th scope="col">{t('disputes.colEvent')}</th><th scope="col">{t('disputes.page.colFrom')}</th><th scope="col">{t('disputes.page.colTo')}</th><th scope="col">{t('disputes.page.colMoney')}</th><th scope="col">{t('disputes.page.colBy')}</th><th scope="col">{t('disputes.page.colDetails')}</th></tr></thead>
              <tbody>{d.history.map((h, i) => (
                <tr key={i}>
                  <td><Time iso={h.created_at} /></td><td>{h.event}</td>
                  <td>{h.from_stage ? `${h.from_stage} / ${h.from_status}` : '—'}</td><td>{h.to_stage} / {h.to_status}</td>
                  <td>{h.money}</td><td>{h.actor}</td><td><code>{Object.keys(h.details).length > 0 ? JSON.stringify(h.details) : '—'}</code></td>
                </tr>))}
              </tbody>
            </Table>
          </section>
        </>
      )}
    </Show>
  );
}
