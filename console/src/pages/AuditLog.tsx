import { useModeQuery } from '../mode';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { call, type Answer } from '../api/client';
import { queryParamsOf } from '../queryParams';
import { Empty, ErrorNote, Field, Show, Table, Time, useLoad } from '../ui';
import { csvCell } from '../csv';
import { fill, useT, type Key } from '../i18n';
import { download } from './Callbacks';
import { MerchantName, ShortId, useMerchants, type MerchantEntry } from '../names';

/** What an entry acted on, by name where the console knows it (a merchant), else its id shortened and copyable. */
function AuditObject({ entry, among, merchants }: { entry: Entry; among: string[]; merchants: MerchantEntry[] | undefined }) {
  const known = entry.object_type === 'merchant' && merchants?.some((m) => m.id === entry.object_id);
  if (known) return <>merchant <MerchantName id={entry.object_id} merchants={merchants} /></>;
  if (!/^[0-9a-f-]{36}$/.test(entry.object_id)) return <>{entry.object_type} <code>{entry.object_id}</code></>;
  return <>{entry.object_type} <ShortId id={entry.object_id} among={among} /></>;
}

type Entry = Answer<'/admin/v1/audit-log', 'get'>['entries'][number];
const PARAMS = queryParamsOf('/admin/v1/audit-log').filter((p) => !['limit', 'cursor', 'mode'].includes(p.name)); // mode: the header's Keys switch
const LABELS: Record<string, Key> = { user_id: 'disputes.audit.userId', action: 'common.action', object_type: 'disputes.audit.objectType', object_id: 'disputes.audit.objectId', from: 'disputes.audit.from', to: 'disputes.audit.to' };

const keysOf = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : []);

/** What an entry changed, folded: the fields named in the summary, before, after and details as JSON when opened. */
function Change({ entry }: { entry: Entry }) {
  const t = useT();
  const fields = [...new Set([...keysOf(entry.before), ...keysOf(entry.after)])];
  const parts = ([[t('disputes.audit.before'), entry.before], [t('disputes.audit.after'), entry.after], [t('disputes.audit.detailsLabel'), entry.details]] as const).filter(([, v]) => v !== null && v !== undefined);
  if (parts.length === 0) return <>—</>;
  return (
    <details>
      <summary>{fields.length > 0 ? fields.slice(0, 4).join(', ') + (fields.length > 4 ? fill(t('disputes.audit.more'), { n: fields.length - 4 }) : '') : t('disputes.audit.details')}</summary>
      {parts.map(([label, v]) => <div key={label}><strong>{label}</strong><pre tabIndex={0} aria-label={fill(t('disputes.audit.ofChange'), { label })}>{JSON.stringify(v, null, 2)}</pre></div>)}
    </details>
  );
}

const CSV_COLUMNS = ['id', 'at', 'user_id', 'user_name', 'action', 'object_type', 'object_id', 'before', 'after', 'details'] as const;
const json = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));

/** Every page of the filtered log (up to 10,000 entries) as CSV, as the payments export does it. */
async function exportCsv(query: Record<string, string | undefined>): Promise<void> {
  const rows: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await call('get', '/admin/v1/audit-log', { query: { ...query, limit: '200', cursor } });
    rows.push(...page.entries);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && rows.length < 10_000);
  const cells = (e: Entry) => [e.id, e.at, e.user.id, e.user.name, e.action, e.object_type, e.object_id, json(e.before), json(e.after), json(e.details)];
  download([CSV_COLUMNS.join(','), ...rows.map((e) => cells(e).map(csvCell).join(','))].join('\r\n'), `audit-log-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.csv`);
}

export function AuditLog() {
  const t = useT();
  const merchants = useMerchants();
  const [search, setSearch] = useSearchParams();
  const modeQuery = useModeQuery();
  const query = { ...Object.fromEntries(PARAMS.map((p) => [p.name, search.get(p.name) ?? undefined]).filter(([, v]) => v)), ...modeQuery };
  const key = JSON.stringify(query);
  const first = useLoad(() => call('get', '/admin/v1/audit-log', { query: { ...query, limit: '50' } }), key);
  const [more, setMore] = useState<{ key: string; entries: Entry[]; cursor: string | null }>();
  const extra = more?.key === key ? more : undefined;
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<Error>();
  return (
    <>
      <h1>{t('disputes.audit.title')}</h1>
      <form className="filters" aria-label={t('disputes.audit.filterForm')} key={key} onSubmit={(e) => {
        e.preventDefault();
        const next = new URLSearchParams();
        for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
        setSearch(next);
      }}>
        {PARAMS.map((p) => <Field key={p.name} label={LABELS[p.name] ? t(LABELS[p.name]!) : p.name}>{(id) => <input id={id} name={p.name} defaultValue={search.get(p.name) ?? ''} />}</Field>)}
        <div className="actions">
          <button type="submit" className="primary">{t('common.filter')}</button><button type="button" onClick={() => setSearch(new URLSearchParams())}>{t('payments.clear')}</button>
          <button type="button" disabled={exporting} onClick={() => {
            setExporting(true);
            setExportError(undefined);
            exportCsv(query).catch(setExportError).finally(() => setExporting(false));
          }}>{exporting ? t('payments.exporting') : t('payments.export')}</button>
        </div>
      </form>
      {exportError && <ErrorNote error={exportError} />}
      <Show loaded={first} what="the audit log">
        {(page) => {
          const entries = [...page.entries, ...(extra?.entries ?? [])];
          const cursor = extra ? extra.cursor : page.next_cursor;
          if (entries.length === 0) return <Empty>{t('disputes.audit.none')}</Empty>;
          return (
            <>
              <Table label={t('disputes.audit.table')}>
                <thead><tr><th scope="col">{t('disputes.page.colTime')}</th><th scope="col">{t('disputes.audit.colUser')}</th><th scope="col">{t('common.action')}</th><th scope="col">{t('disputes.audit.colObject')}</th><th scope="col">{t('disputes.audit.colChange')}</th></tr></thead>
                <tbody>{entries.map((a) => (
                  <tr key={a.id}>
                    <td><Time iso={a.at} /></td><td>{a.user.name}</td><td>{a.action}</td><td><AuditObject entry={a} among={entries.map((e) => e.object_id)} merchants={merchants} /></td>
                    <td className="change"><Change entry={a} /></td>
                  </tr>))}
                </tbody>
              </Table>
              {cursor && <button type="button" onClick={() => void call('get', '/admin/v1/audit-log', { query: { ...query, limit: '50', cursor } })
                .then((p) => setMore({ key, entries: [...(extra?.entries ?? []), ...p.entries], cursor: p.next_cursor }))}>{t('payments.loadMore')}</button>}
            </>
          );
        }}
      </Show>
    </>
  );
}
