import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { call, type Answer } from '../api/client';
import { queryParamsOf } from '../queryParams';
import { Empty, Field, Show, Table, Time, useLoad } from '../ui';

type Entry = Answer<'/admin/v1/audit-log', 'get'>['entries'][number];
const PARAMS = queryParamsOf('/admin/v1/audit-log').filter((p) => !['limit', 'cursor'].includes(p.name));
const LABELS: Record<string, string> = { user_id: 'User id', action: 'Action', object_type: 'Object type', object_id: 'Object id', from: 'From (ISO time)', to: 'To (ISO time)' };

const keysOf = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : []);

/** What an entry changed, folded: the fields named in the summary, before, after and details as JSON when opened. */
function Change({ entry }: { entry: Entry }) {
  const fields = [...new Set([...keysOf(entry.before), ...keysOf(entry.after)])];
  const parts = ([['Before', entry.before], ['After', entry.after], ['Details', entry.details]] as const).filter(([, v]) => v !== null && v !== undefined);
  if (parts.length === 0) return <>—</>;
  return (
    <details>
      <summary>{fields.length > 0 ? fields.slice(0, 4).join(', ') + (fields.length > 4 ? ` and ${fields.length - 4} more` : '') : 'details'}</summary>
      {parts.map(([label, v]) => <div key={label}><strong>{label}</strong><pre tabIndex={0} aria-label={`${label} of the change`}>{JSON.stringify(v, null, 2)}</pre></div>)}
    </details>
  );
}

export function AuditLog() {
  const [search, setSearch] = useSearchParams();
  const query = Object.fromEntries(PARAMS.map((p) => [p.name, search.get(p.name) ?? undefined]).filter(([, v]) => v));
  const key = JSON.stringify(query);
  const first = useLoad(() => call('get', '/admin/v1/audit-log', { query: { ...query, limit: '50' } }), key);
  const [more, setMore] = useState<{ key: string; entries: Entry[]; cursor: string | null }>();
  const extra = more?.key === key ? more : undefined;
  return (
    <>
      <h1>Audit log</h1>
      <form className="filters" aria-label="Filter the audit log" key={key} onSubmit={(e) => {
        e.preventDefault();
        const next = new URLSearchParams();
        for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
        setSearch(next);
      }}>
        {PARAMS.map((p) => <Field key={p.name} label={LABELS[p.name] ?? p.name}>{(id) => <input id={id} name={p.name} defaultValue={search.get(p.name) ?? ''} />}</Field>)}
        <div className="actions"><button type="submit" className="primary">Filter</button><button type="button" onClick={() => setSearch(new URLSearchParams())}>Clear</button></div>
      </form>
      <Show loaded={first} what="the audit log">
        {(page) => {
          const entries = [...page.entries, ...(extra?.entries ?? [])];
          const cursor = extra ? extra.cursor : page.next_cursor;
          if (entries.length === 0) return <Empty>No entry matches.</Empty>;
          return (
            <>
              <Table label="Audit entries, newest first">
                <thead><tr><th scope="col">Time</th><th scope="col">User</th><th scope="col">Action</th><th scope="col">Object</th><th scope="col">Change</th></tr></thead>
                <tbody>{entries.map((a) => (
                  <tr key={a.id}>
                    <td><Time iso={a.at} /></td><td>{a.user.name}</td><td>{a.action}</td><td>{a.object_type} <code title={a.object_id}>{/^[0-9a-f-]{36}$/.test(a.object_id) ? `${a.object_id.slice(0, 8)}…` : a.object_id}</code></td>
                    <td className="change"><Change entry={a} /></td>
                  </tr>))}
                </tbody>
              </Table>
              {cursor && <button type="button" onClick={() => void call('get', '/admin/v1/audit-log', { query: { ...query, limit: '50', cursor } })
                .then((p) => setMore({ key, entries: [...(extra?.entries ?? []), ...p.entries], cursor: p.next_cursor }))}>Load more</button>}
            </>
          );
        }}
      </Show>
    </>
  );
}
