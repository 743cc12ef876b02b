/**
 * The merchant's disputes (issue 29 item 5): the list with each one's deadline, and one dispute with its facts,
 * evidence (upload a PDF, PNG or JPEG; the defence text), submitting the defence or accepting it (disputes.write),
 * and its history. The API decides (limits, transitions, scope); the screen shows its refusals.
 */
import { useRef, useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { buildUrl } from '../../../console/src/api/client';
import { call, type DisputeDetail } from '../api';
import { useCan } from '../session';
import { useI18n, useT, type Key } from '../i18n';
import { codeName, codeWords } from '../codes';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, Money, Show, StatusBadge, Table, Time, errorsByField, useLoad, useSubmit } from '../../../console/src/ui';

const LIVE = ['open', 'evidence_required', 'evidence_submitted'];
const DEFENSIBLE = ['open', 'evidence_required'];
const DEADLINE_TEXT: Record<string, Key> = { none: 'deadline.none', later: 'deadline.later', due_soon: 'deadline.dueSoon', overdue: 'deadline.overdue' };
const deadlineText = (t: (k: Key) => string, deadline: string) => (DEADLINE_TEXT[deadline] ? t(DEADLINE_TEXT[deadline]) : deadline);

function Deadline({ dueAt, deadline }: { dueAt: string | null; deadline: string }) {
  const t = useT();
  if (!dueAt) return <>—</>;
  return <><Time iso={dueAt} /> {deadline === 'due_soon' || deadline === 'overdue' ? <StatusBadge status={deadline} label={codeName(t, deadline)} /> : null} <span className="sr-only">{deadlineText(t, deadline)}</span></>;
}

export function Disputes() {
  const t = useT();
  const list = useLoad(() => call('get', '/portal/v1/disputes', {}), 'disputes');
  return (
    <>
      <h1>{t('nav.disputes')}</h1>
      <p>{t('disputes.intro')}</p>
      <Show loaded={list} what={t('disputes.what')}>
        {({ disputes }) => disputes.length === 0 ? <Empty>{t('disputes.none')}</Empty> : (
          <Table label={t('nav.disputes')}>
            <thead><tr><th scope="col">{t('col.opened')}</th><th scope="col">{t('col.dispute')}</th><th scope="col">{t('col.stage')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('col.amount')}</th><th scope="col">{t('col.reason')}</th><th scope="col">{t('col.answerDue')}</th></tr></thead>
            <tbody>{disputes.map((d) => (
              <tr key={d.id}>
                <td><Time iso={d.created_at} /></td>
                <td><Link to={`/disputes/${d.id}`}>{d.id.slice(-8)}</Link></td>
                <td>{codeWords(t, d.stage)}</td><td><StatusBadge status={d.status} label={codeName(t, d.status)} /></td><td><Money amount={d.amount} currency={d.currency} /></td>
                <td>{d.reason_code ?? '—'} ({codeWords(t, d.category)})</td><td><Deadline dueAt={d.due_at} deadline={d.deadline} /></td>
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
    </>
  );
}

/** The file as base64, for the API's JSON body. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function Defence({ d, changed }: { d: DisputeDetail; changed: () => void }) {
  const { t, rich, plural } = useI18n();
  const fileInput = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const upload = useSubmit(async () => {
    const file = fileInput.current?.files?.[0];
    if (!file) throw new Error(t('defence.chooseFile'));
    await call('post', '/portal/v1/disputes/{id}/evidence', { params: { id: d.id }, body: { file_name: file.name, content_base64: await base64Of(file) } });
    if (fileInput.current) fileInput.current.value = '';
    changed();
  });
  const addText = useSubmit(async () => {
    await call('post', '/portal/v1/disputes/{id}/evidence', { params: { id: d.id }, body: { text } });
    setText('');
    changed();
  });
  const pending = d.evidence.filter((e) => e.submitted_at === null).length;
  return (
    <section aria-labelledby="defend" className="card">
      <h2 id="defend">{DEFENSIBLE.includes(d.status) ? t('defence.defendOrAccept') : t('defence.accept')}</h2>
      {DEFENSIBLE.includes(d.status) && (
        <>
          <form className="inline" aria-label={t('defence.upload')} onSubmit={(e) => void upload.submit(e)}>
            <Field label={t('defence.file')}>{(id) => <input id={id} ref={fileInput} type="file" accept="application/pdf,image/png,image/jpeg" />}</Field>
            <button type="submit" disabled={upload.busy}>{upload.busy ? t('defence.uploading') : t('defence.uploadButton')}</button>
          </form>
          {upload.error && <ErrorNote error={upload.error} />}
          <FieldErrors.Provider value={errorsByField(addText.error)}>
            <form aria-label={t('defence.addText')} onSubmit={(e) => void addText.submit(e)}>
              <Field label={t('defence.text')} path="text">{(id, aria) => <textarea id={id} {...aria} rows={5} value={text} onChange={(e) => setText(e.target.value)} />}</Field>
              <div className="actions"><button type="submit" disabled={addText.busy || !text.trim()}>{t('defence.addTextButton')}</button></div>
            </form>
          </FieldErrors.Provider>
        </>
      )}
      <div className="actions">
        {DEFENSIBLE.includes(d.status) && (
          <ConfirmButton label={t('defence.submit')} confirmLabel={t('defence.submitConfirm')} title={t('defence.submitTitle')} disabled={pending === 0}
            action={async () => { await call('post', '/portal/v1/disputes/{id}/submit', { params: { id: d.id }, body: {} }); changed(); }}>
            <p>{plural(pending, 'defence.piecesOne', 'defence.piecesOther')} {t('defence.noAdding')}</p>
          </ConfirmButton>
        )}
        {d.stage !== 'inquiry' && (
          <ConfirmButton label={t('defence.acceptButton')} confirmLabel={t('defence.acceptConfirm')} title={t('defence.acceptTitle')} danger
            action={async () => { await call('post', '/portal/v1/disputes/{id}/accept', { params: { id: d.id }, body: {} }); changed(); }}>
            <p>{rich('defence.giveUp', { amount: <Money amount={d.amount} currency={d.currency} /> })}</p>
          </ConfirmButton>
        )}
      </div>
    </section>
  );
}

export function DisputePage() {
  const { t, rich, number } = useI18n();
  const { id = '' } = useParams();
  const can = useCan();
  const detail = useLoad(() => call('get', '/portal/v1/disputes/{id}', { params: { id } }), id);
  return (
    <Show loaded={detail} what={t('dispute.what')}>
      {(d) => {
        const rows: [string, ReactNode][] = [
          [t('col.amount'), <Money amount={d.amount} currency={d.currency} />], [t('col.stage'), codeWords(t, d.stage)], [t('dispute.reasonCode'), `${d.reason_code ?? '—'} (${codeWords(t, d.category)})`],
          [t('dispute.respondBy'), d.due_at ? <><Time iso={d.due_at} /> {deadlineText(t, d.deadline)}</> : '—'], [t('dispute.bankDate'), d.bank_date],
          [t('dispute.payment'), <Link to={`/payments/${d.payment_id}`}>{d.payment_id}</Link>], [t('col.opened'), <Time iso={d.created_at} />],
        ];
        return (
          <>
            <p className="crumbs"><Link to="/disputes">{t('nav.disputes')}</Link> / {d.id.slice(-8)}</p>
            <h1>{t('dispute.title')} <StatusBadge status={d.status} label={codeName(t, d.status)} /></h1>
            {DEFENSIBLE.includes(d.status) && (d.deadline === 'due_soon' || d.deadline === 'overdue')
              ? <p className="warn" role="status">{rich(d.deadline === 'overdue' ? 'dispute.passed' : 'dispute.passesSoon', { time: <Time iso={d.due_at} /> })}</p>
              : null}
            <dl className="facts">{rows.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v ?? '—'}</dd></div>)}</dl>
            <section aria-labelledby="evidence">
              <h2 id="evidence">{t('dispute.evidence')}</h2>
              {d.evidence.length === 0 ? <Empty>{t('dispute.noEvidence')}</Empty> : (
                <Table label={t('dispute.evidence')}>
                  <thead><tr><th scope="col">{t('col.added')}</th><th scope="col">{t('col.what')}</th><th scope="col">{t('col.type')}</th><th scope="col">{t('col.size')}</th><th scope="col">{t('col.by')}</th><th scope="col">{t('col.submitted')}</th></tr></thead>
                  <tbody>{d.evidence.map((e) => (
                    <tr key={e.id}>
                      <td><Time iso={e.created_at} /></td>
                      <td><a href={buildUrl('/portal/v1/disputes/{id}/evidence/{evidenceId}', { id: d.id, evidenceId: e.id })}>{e.file_name ?? (e.kind === 'text' ? t('defence.text') : e.id)}</a></td>
                      <td>{e.content_type}</td><td>{t('dispute.bytes', { size: number(e.size) })}</td><td>{e.created_by}</td><td>{e.submitted_at ? <Time iso={e.submitted_at} /> : t('dispute.notYet')}</td>
                    </tr>))}
                  </tbody>
                </Table>
              )}
            </section>
            {can('disputes.write') && LIVE.includes(d.status) && (DEFENSIBLE.includes(d.status) || d.stage !== 'inquiry') && <Defence d={d} changed={detail.reload} />}
            <section aria-labelledby="history">
              <h2 id="history">{t('dispute.history')}</h2>
              <Table label={t('dispute.historyLabel')}>
                <thead><tr><th scope="col">{t('col.time')}</th><th scope="col">{t('col.event')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('col.by')}</th></tr></thead>
                <tbody>{d.history.map((h, i) => (
                  <tr key={i}><td><Time iso={h.created_at} /></td><td>{codeWords(t, h.event)}</td><td>{codeWords(t, h.to_stage)} / {codeWords(t, h.to_status)}</td><td>{h.actor}</td></tr>
                ))}</tbody>
              </Table>
            </section>
          </>
        );
      }}
    </Show>
  );
}
