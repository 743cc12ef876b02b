import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { call, type Answer } from '../api/client';
import { csvCell } from '../csv';
import { queryParamsOf } from '../queryParams';
import { useCan } from '../session';
import { useModeQuery } from '../mode';
import { ConfirmButton, Empty, ErrorNote, Field, Show, StatusBadge, Table, Time, useLoad } from '../ui';
import { MerchantName, MerchantPicker, ShortId, useMerchants } from '../names';
import { fill, useT, type Key } from '../i18n';

// mode: the header's Keys switch; limit and cursor: the pages.
const PARAMS = queryParamsOf('/admin/v1/callbacks').filter((p) => !['limit', 'mode', 'cursor'].includes(p.name));
const LABELS: Record<string, Key> = { merchant_id: 'col.merchant', payment_id: 'callbacks.paymentId', status: 'col.status', event: 'callbacks.event', state: 'callbacks.deliveryState', mode: 'callbacks.keys' };
/** The events callbacks report, offered while typing the event filter (any other lower-case word is allowed too). */
const EVENTS = ['sale', 'auth', '3ds', 'capture', 'refund', 'reversal', 'void', 'chargeback', 'creditvoid', 'test'];
const PAGE = 100;

/** URLs the dispatcher blocked after repeated timeouts: their callbacks wait until the block ends or an operator lifts it. */
function BlockedUrls() {
  const t = useT();
  const can = useCan();
  const merchants = useMerchants();
  const blocked = useLoad(() => call('get', '/admin/v1/callback-urls/blocked', { query: {} }), 'blocked');
  const [done, setDone] = useState<string>();
  return (
    <section aria-labelledby="blocked" className="card">
      <h2 id="blocked">{t('callbacks.blocked')}</h2>
      <p className="sub">{t('callbacks.blockedExplain')}</p>
      {done && <p role="status">{fill(t('callbacks.unblocked'), { url: done })}</p>}
      <Show loaded={blocked} what="blocked URLs">
        {(d) => d.urls.length === 0 ? <Empty>{t('callbacks.noneBlocked')}</Empty> : (
          <Table label={t('callbacks.blockedTable')}>
            <thead><tr><th scope="col">{t('callbacks.colUrl')}</th><th scope="col">{t('callbacks.blockedUntil')}</th><th scope="col">{t('callbacks.timeouts')}</th><th scope="col">{t('callbacks.waiting')}</th><th scope="col">{t('callbacks.merchants')}</th>{can('callbacks.unblock') && <th scope="col">{t('common.action')}</th>}</tr></thead>
            <tbody>{d.urls.map((u) => (
              <tr key={u.url}>
                <td className="url">{u.url}</td>
                <td><Time iso={u.blocked_until} /></td>
                <td>{u.timeouts.length}{u.timeouts.length > 0 && <> ({t('callbacks.last')} <Time iso={u.timeouts[u.timeouts.length - 1]} />)</>}</td>
                <td>{u.waiting_callbacks}</td>
                <td>{u.merchant_ids.length === 0 ? '—' : u.merchant_ids.map((m) => <div key={m}><MerchantName id={m} merchants={merchants} /></div>)}</td>
                {can('callbacks.unblock') && (
                  <td><ConfirmButton label={t('callbacks.unblock')} title={fill(t('callbacks.unblockTitle'), { url: u.url })} action={async () => {
                    await call('post', '/admin/v1/callback-urls/unblock', { body: { url: u.url } });
                    setDone(u.url);
                    blocked.reload();
                  }}><p>{fill(t('callbacks.unblockExplain'), { n: u.waiting_callbacks })}</p></ConfirmButton></td>
                )}
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
    </section>
  );
}

type Listed = Answer<'/admin/v1/callbacks', 'get'>['callbacks'][number];
type BulkAnswer = Answer<'/admin/v1/callbacks/resend', 'post'>;

/** The state in words, and for one waiting behind an earlier callback, which one and how often it was tried. */
function DeliveryState({ c, among }: { c: Listed; among: string[] }) {
  const t = useT();
  return (
    <>
      <StatusBadge status={c.status} /> <span className="state-text">{c.state_text}</span>
      {c.waiting_behind && (
        <div className="sub">
          {t('callbacks.behind')} <ShortId id={c.waiting_behind.id} among={among} />: {c.waiting_behind.attempts === 1 ? t('callbacks.oneAttemptSoFar') : fill(t('callbacks.attemptsSoFar'), { n: c.waiting_behind.attempts })}
          {c.waiting_behind.last_error ? `, last error ${c.waiting_behind.last_error}` : ''}
        </div>
      )}
    </>
  );
}

/** What a resend did, in words: the operator sees that something happened and what. */
export function resendText(r: Pick<BulkAnswer, 'resent' | 'due_now' | 'sending' | 'not_found'> & { more?: boolean }): string {
  const parts = [
    r.resent.length && `${r.resent.length} sent again from the start`,
    r.due_now.length && `${r.due_now.length} retrying callback${r.due_now.length === 1 ? '' : 's'} due now`,
    r.sending.length && `${r.sending.length} being sent already`,
    r.not_found.length && `${r.not_found.length} not found`,
  ].filter(Boolean);
  return `${parts.length ? parts.join(', ') : 'Nothing to send'}.${r.more ? ' More callbacks match: resend again for the rest.' : ''}`;
}

const CSV_COLUMNS = ['id', 'created_at', 'merchant_id', 'payment_id', 'event_type', 'event_status', 'status', 'state', 'attempts', 'due_at', 'delivered_at', 'last_error', 'url'] as const;

/** The callbacks the filter matches (newest first, page after page up to 10,000) as CSV, as the payments export does it. */
async function exportCsv(query: Record<string, string | undefined>): Promise<void> {
  const rows: Listed[] = [];
  let cursor: string | undefined;
  do {
    const page = await call('get', '/admin/v1/callbacks', { query: { ...query, limit: '1000', cursor } });
    rows.push(...page.callbacks);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && rows.length < 10_000);
  const text = [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\r\n');
  download(text, `callbacks-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.csv`);
}

export function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Callbacks() {
  const t = useT();
  const can = useCan();
  const merchants = useMerchants();
  const [search, setSearch] = useSearchParams();
  const modeQuery = useModeQuery();
  const query = { ...Object.fromEntries(PARAMS.map((p) => [p.name, search.get(p.name) ?? undefined]).filter(([, v]) => v)), ...modeQuery };
  const key = JSON.stringify(query);
  const list = useLoad(() => call('get', '/admin/v1/callbacks', { query: { ...query, limit: String(PAGE) } }), key);
  const [more, setMore] = useState<{ key: string; callbacks: Listed[]; cursor: string | null }>();
  const extra = more?.key === key ? more : undefined;
  const loadMore = async (cursor: string) => {
    const page = await call('get', '/admin/v1/callbacks', { query: { ...query, limit: String(PAGE), cursor } });
    setMore((m) => ({ key, callbacks: [...(m?.key === key ? m.callbacks : []), ...page.callbacks], cursor: page.next_cursor }));
  };
  const [picked, setPicked] = useState<string[]>([]);
  const [done, setDone] = useState<string>();
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<Error>();
  const resend = can('callbacks.resend');
  const after = (text: string) => { setDone(text); setPicked([]); setMore(undefined); list.reload(); };
  return (
    <>
      <h1>Callbacks</h1>
      <form className="filters" aria-label={t('callbacks.filter')} key={key} onSubmit={(e) => {
        e.preventDefault();
        const next = new URLSearchParams();
        for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
        setPicked([]);
        setSearch(next);
      }}>
        {PARAMS.map((p) => p.name === 'merchant_id' ? <MerchantPicker key={p.name} name={p.name} defaultValue={search.get(p.name) ?? ''} /> : (
          <Field key={p.name} label={LABELS[p.name] ? t(LABELS[p.name]!) : p.name}>
            {(id) => p.values
              ? <select id={id} name={p.name} defaultValue={search.get(p.name) ?? ''}><option value="">{t('common.any')}</option>{p.values.map((v) => <option key={v}>{v}</option>)}</select>
              : <input id={id} name={p.name} defaultValue={search.get(p.name) ?? ''} {...(p.name === 'event' ? { list: 'callback-events', placeholder: 'sale, refund, …' } : {})} />}
          </Field>
        ))}
        <datalist id="callback-events">{EVENTS.map((e) => <option key={e} value={e} />)}</datalist>
        <div className="actions"><button type="submit" className="primary">{t('common.filter')}</button><button type="button" onClick={() => setSearch(new URLSearchParams())}>{t('payments.clear')}</button></div>
      </form>
      <p role="status" className={done ? 'notice' : 'sr-only'}>{done ?? ''}</p>
      <Show loaded={list} what="callbacks">
        {(first) => {
          const d = { callbacks: [...first.callbacks, ...(extra?.callbacks ?? [])] };
          const cursor = extra ? extra.cursor : first.next_cursor;
          const among = d.callbacks.flatMap((x) => [x.id, ...(x.payment_id ? [x.payment_id] : [])]);
          const all = d.callbacks.length > 0 && picked.length === d.callbacks.length;
          return (
            <>
              <div className="actions" role="group" aria-label={t('callbacks.shown')}>
                {resend && (
                  <ConfirmButton label={fill(t('callbacks.resendSelected'), { n: picked.length })} confirmLabel={t('callbacks.resend')} title={fill(t('callbacks.resendSelectedTitle'), { n: picked.length })} disabled={picked.length === 0}
                    action={async () => after(resendText(await call('post', '/admin/v1/callbacks/resend', { body: { ids: picked } })))}>
                    <p>{t('callbacks.resendExplain')}</p>
                  </ConfirmButton>
                )}
                {resend && d.callbacks.length > 0 && (
                  <ConfirmButton label={t('callbacks.resendAll')} confirmLabel={t('callbacks.resendAllConfirm')} title={t('callbacks.resendAllTitle')}
                    action={async () => after(resendText(await call('post', '/admin/v1/callbacks/resend', { body: { filter: query } })))}>
                    <p>{fill(t('callbacks.resendAllExplain'), { filter: Object.keys(query).length === 0 ? t('callbacks.noFilter') : Object.entries(query).map(([k, v]) => `${LABELS[k] ? t(LABELS[k]!) : k} ${v}`).join(', ') })}</p>
                  </ConfirmButton>
                )}
                <button type="button" disabled={d.callbacks.length === 0 || exporting} onClick={() => {
                  setExporting(true);
                  setExportError(undefined);
                  exportCsv(query).catch(setExportError).finally(() => setExporting(false));
                }}>{exporting ? t('payments.exporting') : t('payments.export')}</button>
                {exportError && <ErrorNote error={exportError} />}
              </div>
              {d.callbacks.length === 0 ? <Empty>{t('callbacks.none')}</Empty> : (
                <Table label={t('callbacks.table')}>
                  <thead><tr>
                    {resend && <th scope="col"><input type="checkbox" aria-label={t('callbacks.selectAll')} checked={all} onChange={(e) => setPicked(e.target.checked ? d.callbacks.map((c) => c.id) : [])} /></th>}
                    {(['callbacks.colCreated', 'col.merchant', 'callbacks.event', 'callbacks.colState', 'callbacks.colPayment', 'callbacks.colUrl', 'callbacks.colAttempts', 'callbacks.colLastError', 'callbacks.colNext'] as const).map((k) => <th key={k} scope="col">{t(k)}</th>)}{resend && <th scope="col">{t('common.action')}</th>}
                  </tr></thead>
                  <tbody>{d.callbacks.map((c) => (
                    <tr key={c.id}>
                      {resend && <td><input type="checkbox" aria-label={`Select callback ${c.id.slice(0, 8)}`} checked={picked.includes(c.id)}
                        onChange={(e) => setPicked((p) => (e.target.checked ? [...p, c.id] : p.filter((x) => x !== c.id)))} /></td>}
                      <td><Time iso={c.created_at} /></td>
                      <td><MerchantName id={c.merchant_id} merchants={merchants} /></td>
                      <td>{c.event_type}{c.event_status ? ` (${c.event_status})` : ''}</td>
                      <td><DeliveryState c={c} among={among} /></td>
                      <td>{c.payment_id ? <ShortId id={c.payment_id} to={`/payments/${c.payment_id}`} among={among} /> : '—'}</td>
                      <td className="url">{c.url}</td>
                      <td>{c.attempts}</td>
                      <td>{c.last_error ?? '—'}</td>
                      <td>{c.due_at ? (Date.parse(c.due_at) <= Date.now() + 1000 ? t('common.now') : <Time iso={c.due_at} />) : '—'}</td>
                      {resend && <td><ConfirmButton label={t('callbacks.resend')} title={t('callbacks.sendThis')} action={async () => {
                        const r = await call('post', '/admin/v1/callbacks/{id}/resend', { params: { id: c.id } });
                        after(resendText({ resent: r.result === 'resent' ? [r.id] : [], due_now: r.result === 'due_now' ? [r.id] : [], sending: r.result === 'sending' ? [r.id] : [], not_found: [] }));
                      }} /></td>}
                    </tr>))}
                  </tbody>
                </Table>
              )}
              {cursor && <button type="button" onClick={() => void loadMore(cursor)}>{t('payments.loadMore')}</button>}
            </>
          );
        }}
      </Show>
      <BlockedUrls />
    </>
  );
}
