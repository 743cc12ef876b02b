import { useState } from 'react';
import { call, type Answer, type Mid } from '../api/client';
import { useCan } from '../session';
import { SchemaForm, type ObjectSchema } from '../SchemaForm';
import { ConfirmButton, Empty, ErrorNote, Field, Show, Table, useLoad, useSubmit } from '../ui';

type Connector = Answer<'/admin/v1/connectors', 'get'>['connectors'][number];
type Mode = Mid['payment_mode'];

const withoutEmpty = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '' && v !== undefined));

function MidForm({ merchantId, connectors, mid, done }: { merchantId: string; connectors: Connector[]; mid?: Mid; done: () => void }) {
  const [connector, setConnector] = useState(mid?.connector ?? connectors[0]?.name ?? '');
  const [name, setName] = useState(mid?.name ?? '');
  const [mode, setMode] = useState<Mode>(mid?.payment_mode ?? 'SMS/DMS');
  const [currencies, setCurrencies] = useState(mid?.currencies?.join(', ') ?? '');
  const [minAmount, setMinAmount] = useState(mid?.min_amount ?? '');
  const [maxAmount, setMaxAmount] = useState(mid?.max_amount ?? '');
  const [descriptor, setDescriptor] = useState(mid?.descriptor ?? '');
  const [cof, setCof] = useState(mid?.card_on_file_support ?? false);
  const [settings, setSettings] = useState<Record<string, unknown>>(mid?.settings ?? {});
  const [credentials, setCredentials] = useState<Record<string, unknown>>({});
  const schema = connectors.find((c) => c.name === connector);
  const { busy, error, submit } = useSubmit(async () => {
    const creds = withoutEmpty(credentials) as Record<string, string>;
    const common = {
      name: name || undefined, payment_mode: mode, descriptor: descriptor || null, card_on_file_support: cof,
      currencies: currencies.trim() ? currencies.split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase()) : null,
      min_amount: minAmount || null, max_amount: maxAmount || null, settings: withoutEmpty(settings),
      ...(Object.keys(creds).length > 0 ? { credentials: creds } : {}),
    };
    if (mid) await call('patch', '/admin/v1/merchants/{id}/mids/{midId}', { params: { id: merchantId, midId: mid.id }, body: common });
    else await call('post', '/admin/v1/merchants/{id}/mids', { params: { id: merchantId }, body: { connector, ...common } });
    done();
  });
  return (
    <form onSubmit={(e) => void submit(e)} className="card" aria-label={mid ? `Edit MID ${mid.name}` : 'New MID'}>
      <h2>{mid ? `Edit ${mid.name}` : 'New MID'}</h2>
      <div className="grid">
        <Field label="Connector">{(id) => (
          <select id={id} value={connector} disabled={Boolean(mid)} onChange={(e) => { setConnector(e.target.value); setSettings({}); setCredentials({}); }}>
            {connectors.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
          </select>)}
        </Field>
        <Field label="Name">{(id) => <input id={id} value={name} placeholder={connector} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field label="Payment mode" hint="SMS takes sales, DMS authorizations, SMS/DMS both.">{(id) => (
          <select id={id} value={mode} onChange={(e) => setMode(e.target.value as Mode)}><option>SMS/DMS</option><option>SMS</option><option>DMS</option></select>)}
        </Field>
        <Field label="Currencies" hint="ISO codes, comma separated; empty: any.">{(id) => <input id={id} value={currencies} onChange={(e) => setCurrencies(e.target.value)} />}</Field>
        <Field label="Minimum amount">{(id) => <input id={id} inputMode="decimal" value={minAmount} onChange={(e) => setMinAmount(e.target.value)} />}</Field>
        <Field label="Maximum amount">{(id) => <input id={id} inputMode="decimal" value={maxAmount} onChange={(e) => setMaxAmount(e.target.value)} />}</Field>
        <Field label="Descriptor">{(id) => <input id={id} value={descriptor} onChange={(e) => setDescriptor(e.target.value)} />}</Field>
        <label className="check"><input type="checkbox" checked={cof} onChange={(e) => setCof(e.target.checked)} /> Card on file support</label>
      </div>
      <SchemaForm legend="Connector settings" schema={(schema?.settings_schema ?? null) as ObjectSchema | null} values={settings} onChange={setSettings} />
      <SchemaForm legend="Credentials" secret schema={(schema?.credentials_schema ?? null) as ObjectSchema | null} values={credentials} onChange={setCredentials} masked={mid?.credentials ?? null} />
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{mid ? 'Save MID' : 'Create MID'}</button></div>
    </form>
  );
}

export function Mids({ merchantId }: { merchantId: string }) {
  const can = useCan();
  const writable = can('mids.write');
  const [editing, setEditing] = useState<string | 'new' | undefined>();
  const data = useLoad(async () => {
    const [mids, connectors] = await Promise.all([
      call('get', '/admin/v1/merchants/{id}/mids', { params: { id: merchantId } }),
      call('get', '/admin/v1/connectors'),
    ]);
    return { mids: [...mids.mids].sort((a, b) => b.priority - a.priority), connectors: connectors.connectors };
  }, merchantId);
  const move = async (mids: Mid[], index: number, by: number) => {
    const order = mids.map((m) => m.id);
    const [moved] = order.splice(index, 1);
    order.splice(index + by, 0, moved!);
    await call('put', '/admin/v1/merchants/{id}/mids/order', { params: { id: merchantId }, body: { mid_ids: order } });
    data.reload();
  };
  const [moveError, setMoveError] = useState<Error>();
  return (
    <Show loaded={data} what="MIDs">
      {(d) => (
        <>
          {writable && editing === undefined && <button type="button" className="primary" onClick={() => setEditing('new')}>New MID</button>}
          {editing !== undefined && (
            <MidForm key={editing} merchantId={merchantId} connectors={d.connectors} mid={d.mids.find((m) => m.id === editing)}
              done={() => { setEditing(undefined); data.reload(); }} />
          )}
          {moveError && <ErrorNote error={moveError} />}
          {d.mids.length === 0 ? <Empty>No MID yet: the merchant cannot take payments.</Empty> : (
            <Table label="MIDs, highest priority first">
              <thead><tr><th scope="col">Priority</th><th scope="col">Name</th><th scope="col">Connector</th><th scope="col">Mode</th><th scope="col">Currencies</th><th scope="col">Credentials</th><th scope="col">State</th>{writable && <th scope="col">Actions</th>}</tr></thead>
              <tbody>{d.mids.map((m, i) => (
                <tr key={m.id}>
                  <td>{m.priority}</td><td>{m.name}</td><td>{m.connector}</td><td>{m.payment_mode}</td>
                  <td>{m.currencies?.join(', ') ?? 'any'}</td>
                  <td>{m.credentials ? Object.entries(m.credentials).map(([k, v]) => `${k} ${v}`).join(', ') : '—'}</td>
                  <td>{m.enabled ? 'enabled' : <span className="badge badge-decline">disabled</span>}</td>
                  {writable && (
                    <td className="row-actions">
                      <button type="button" aria-label={`Move ${m.name} up`} disabled={i === 0} onClick={() => void move(d.mids, i, -1).catch(setMoveError)}>↑</button>
                      <button type="button" aria-label={`Move ${m.name} down`} disabled={i === d.mids.length - 1} onClick={() => void move(d.mids, i, 1).catch(setMoveError)}>↓</button>
                      <button type="button" onClick={() => setEditing(m.id)}>Edit</button>
                      {m.enabled
                        ? <ConfirmButton label="Disable" danger title={`Disable MID ${m.name}?`} action={async () => { await call('post', '/admin/v1/merchants/{id}/mids/{midId}/disable', { params: { id: merchantId, midId: m.id } }); data.reload(); }} />
                        : <ConfirmButton label="Enable" title={`Enable MID ${m.name}?`} action={async () => { await call('post', '/admin/v1/merchants/{id}/mids/{midId}/enable', { params: { id: merchantId, midId: m.id } }); data.reload(); }} />}
                    </td>
                  )}
                </tr>))}
              </tbody>
            </Table>
          )}
        </>
      )}
    </Show>
  );
}
