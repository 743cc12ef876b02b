import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { call } from '../api/client';
import { queryParamsOf } from '../queryParams';
import { useCan } from '../session';
import { ConfirmButton, Empty, Field, Show, StatusBadge, Table, Time, useLoad } from '../ui';

const PARAMS = queryParamsOf('/admin/v1/callbacks').filter((p) => p.name !== 'limit');
const LABELS: Record<string, string> = { merchant_id: 'Merchant id', payment_id: 'Payment id', status: 'Status' };

/** URLs the dispatcher blocked after repeated timeouts: their callbacks wait until the block ends or an operator lifts it. */
function BlockedUrls() {
  const can = useCan();
  const blocked = useLoad(() => call('get', '/admin/v1/callback-urls/blocked', { query: {} }), 'blocked');
  const [done, setDone] = useState<string>();
  return (
    <section aria-labelledby="blocked" className="card">
      <h2 id="blocked">Blocked URLs</h2>
      <p className="sub">Five timeouts within five minutes block a URL for fifteen; its callbacks wait. Unblock it once the receiver is fixed.</p>
      {done && <p role="status">Unblocked {done}; its waiting callbacks are due now.</p>}
      <Show loaded={blocked} what="blocked URLs">
        {(d) => d.urls.length === 0 ? <Empty>No callback URL is blocked.</Empty> : (
          <Table label="Blocked callback URLs">
            <thead><tr><th scope="col">URL</th><th scope="col">Blocked until</th><th scope="col">Timeouts</th><th scope="col">Waiting callbacks</th><th scope="col">Merchants</th>{can('callbacks.unblock') && <th scope="col">Action</th>}</tr></thead>
            <tbody>{d.urls.map((u) => (
              <tr key={u.url}>
                <td className="url">{u.url}</td>
                <td><Time iso={u.blocked_until} /></td>
                <td>{u.timeouts.length}{u.timeouts.length > 0 && <> (last <Time iso={u.timeouts[u.timeouts.length - 1]} />)</>}</td>
                <td>{u.waiting_callbacks}</td>
                <td>{u.merchant_ids.length === 0 ? '—' : u.merchant_ids.map((m) => <div key={m}><Link to={`/merchants/${m}`}>{m.slice(0, 8)}…</Link></div>)}</td>
                {can('callbacks.unblock') && (
                  <td><ConfirmButton label="Unblock" title={`Unblock ${u.url}?`} action={async () => {
                    await call('post', '/admin/v1/callback-urls/unblock', { body: { url: u.url } });
                    setDone(u.url);
                    blocked.reload();
                  }}><p>Its {u.waiting_callbacks} waiting callback(s) are sent at once.</p></ConfirmButton></td>
                )}
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
    </section>
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
      <BlockedUrls />
    </>
  );
}
