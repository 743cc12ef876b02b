import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { call, type Answer } from '../api/client';
import { useCan } from '../session';
import { Empty, ErrorNote, Field, Show, ShownOnce, Table, Time, useLoad, useSubmit } from '../ui';

type Created = Answer<'/admin/v1/merchants', 'post'>;

function CreateMerchant({ done }: { done: () => void }) {
  const [name, setName] = useState('');
  const [notificationUrl, setNotificationUrl] = useState('');
  const [sandbox, setSandbox] = useState(true);
  const [hash, setHash] = useState<'md5' | 'sha256'>('md5');
  const [created, setCreated] = useState<Created>();
  const { busy, error, submit } = useSubmit(async () => {
    const merchant = await call('post', '/admin/v1/merchants', {
      body: { name, sandbox, hash_algorithm: hash, ...(notificationUrl ? { notification_url: notificationUrl } : {}) },
    });
    setCreated(merchant);
    setName('');
    setNotificationUrl('');
    done();
  });
  return (
    <section aria-labelledby="new-merchant" className="card">
      <h2 id="new-merchant">New merchant</h2>
      {created && (
        <div className="created">
          <p>Merchant <Link to={`/merchants/${created.id}`}>{created.name}</Link> created. Merchant key: <code data-testid="merchant-key">{created.merchant_key}</code></p>
          <ShownOnce label="Password" value={created.password} />
        </div>
      )}
      <form onSubmit={(e) => void submit(e)} className="grid">
        <Field label="Name">{(id) => <input id={id} required value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field label="Notification URL" hint="Where callbacks go (https).">{(id) => <input id={id} type="url" value={notificationUrl} onChange={(e) => setNotificationUrl(e.target.value)} />}</Field>
        <Field label="Hash algorithm">{(id) => (
          <select id={id} value={hash} onChange={(e) => setHash(e.target.value as 'md5' | 'sha256')}><option value="sha256">sha256</option><option value="md5">md5</option></select>)}
        </Field>
        <label className="check"><input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.target.checked)} /> Sandbox (test connectors only)</label>
        {error && <ErrorNote error={error} />}
        <div className="actions"><button type="submit" className="primary" disabled={busy}>Create merchant</button></div>
      </form>
    </section>
  );
}

export function Merchants() {
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const disabled = params.get('disabled') ?? '';
  const list = useLoad(() => call('get', '/admin/v1/merchants', { query: { search: search || undefined, disabled: (disabled || undefined) as 'true' | 'false' | undefined, limit: '100' } }), `${search}|${disabled}`);
  return (
    <>
      <h1>Merchants</h1>
      <form className="filters" aria-label="Find merchants" onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const next = new URLSearchParams();
        for (const k of ['search', 'disabled']) { const v = String(data.get(k) ?? ''); if (v) next.set(k, v); }
        setParams(next);
      }}>
        <Field label="Name or merchant key">{(id) => <input id={id} name="search" type="search" defaultValue={search} />}</Field>
        <Field label="State">{(id) => <select id={id} name="disabled" defaultValue={disabled}><option value="">Any</option><option value="false">Enabled</option><option value="true">Disabled</option></select>}</Field>
        <div className="actions"><button type="submit" className="primary">Search</button></div>
      </form>
      {can('merchants.write') && <CreateMerchant done={list.reload} />}
      <Show loaded={list} what="merchants">
        {(d) => d.merchants.length === 0 ? <Empty>No merchant matches.</Empty> : (
          <Table label="Merchants">
            <thead><tr><th scope="col">Name</th><th scope="col">Merchant key</th><th scope="col">Mode</th><th scope="col">Hash</th><th scope="col">State</th><th scope="col">Created</th></tr></thead>
            <tbody>{d.merchants.map((m) => (
              <tr key={m.id}>
                <td><Link to={`/merchants/${m.id}`}>{m.name}</Link></td>
                <td><code>{m.merchant_key}</code></td>
                <td>{m.sandbox ? 'sandbox' : 'live'}</td>
                <td>{m.hash_algorithm}</td>
                <td>{m.disabled ? <span className="badge badge-decline">disabled</span> : 'enabled'}</td>
                <td><Time iso={m.created_at} /></td>
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
    </>
  );
}
