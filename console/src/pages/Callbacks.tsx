import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { call } from '../api/client';
import { queryParamsOf } from '../queryParams';
import { useCan } from '../session';
import { ConfirmButton, Empty, ErrorNote, Field, Show, StatusBadge, Table, Time, useLoad, useSubmit } from '../ui';

const PARAMS = queryParamsOf('/admin/v1/callbacks').filter((p) => p.name !== 'limit');
const LABELS: Record<string, string> = { merchant_id: 'Merchant id', payment_id: 'Payment id', status: 'Status' };

function Unblock() {
  const [url, setUrl] = useState('');
  const [done, setDone] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    await call('post', '/admin/v1/callback-urls/unblock', { body: { url } });
    setDone(url);
    setUrl('');
  });
  return (
    <form className="card" aria-labelledby="unblock" onSubmit={(e) => void submit(e)}>
      <h2 id="unblock">Unblock a callback URL</h2>
      <p className="sub">The dispatcher blocks a URL after repeated timeouts; its callbacks wait. Unblock it once the receiver is fixed.</p>
      <div className="grid">
        <Field label="Blocked URL">{(id) => <input id={id} type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />}</Field>
      </div>
      {error && <ErrorNote error={error} />}
      {done && <p role="status">Unblocked {done}.</p>}
      <div className="actions"><button type="submit" disabled={busy}>Unblock</button></div>
    </form>
  );
}

export function Callbacks() {
  const can = useCan();
  const [search, setSearch] = useSearchParams();
  const query = Object.fromEntries(PARAMS.map((p) => [p.name, search.get(p.name) ?? undefined]).filter(([, v]) => v));
  const key = JSON.stringify(query);
  const list = useLoad(() => call('get', '/admin/v1/callbacks', { query: { ...query, limit: '100' } }), key);
  return (
    <>
      <h1>Callbacks</h1>
      <form className="filters" aria-label="Filter callbacks" key={key} onSubmit={(e) => {
        e.preventDefault();
        const next = new URLSearchParams();
        for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) next.set(k, v.trim());
        setSearch(next);
      }}>
        {PARAMS.map((p) => (
          <Field key={p.name} label={LABELS[p.name] ?? p.name}>
            {(id) => p.values
              ? <select id={id} name={p.name} defaultValue={search.get(p.name) ?? ''}><option value="">Any</option>{p.values.map((v) => <option key={v}>{v}</option>)}</select>
              : <input id={id} name={p.name} defaultValue={search.get(p.name) ?? ''} />}
          </Field>
        ))}
        <div className="actions"><button type="submit" className="primary">Filter</button><button type="button" onClick={() => setSearch(new URLSearchParams())}>Clear</button></div>
      </form>
      <Show loaded={list} what="callbacks">
        {(d) => d.callbacks.length === 0 ? <Empty>No callback matches.</Empty> : (
          <Table label="Callback events, newest first">
            <thead><tr><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Payment</th><th scope="col">URL</th><th scope="col">Attempts</th><th scope="col">Last error</th><th scope="col">Next attempt</th>{can('callbacks.resend') && <th scope="col">Action</th>}</tr></thead>
            <tbody>{d.callbacks.map((c) => (
              <tr key={c.id}>
                <td><Time iso={c.created_at} /></td>
                <td><StatusBadge status={c.status} /></td>
                <td>{c.payment_id ? <Link to={`/payments/${c.payment_id}`}>{c.payment_id.slice(0, 8)}…</Link> : '—'}</td>
                <td className="url">{c.url}</td>
                <td>{c.attempts}</td>
                <td>{c.last_error ?? '—'}</td>
                <td>{c.status === 'pending' ? <Time iso={c.next_attempt_at} /> : '—'}</td>
                {can('callbacks.resend') && <td><ConfirmButton label="Resend" title="Send this callback now?" action={async () => { await call('post', '/admin/v1/callbacks/{id}/resend', { params: { id: c.id } }); list.reload(); }} /></td>}
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
      {can('callbacks.unblock') && <Unblock />}
    </>
  );
}
