import { useState } from 'react';
import { call, type Answer, type Mid } from '../api/client';
import { useCan } from '../session';
import { formatMoney } from '../format';
import { SchemaForm, type ObjectSchema } from '../SchemaForm';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, InlineErrors, Show, Table, errorsByField, useLoad, useSubmit } from '../ui';

type Connector = Answer<'/admin/v1/connectors', 'get'>['connectors'][number];
type Mode = Mid['payment_mode'];

interface CapRow { currency: string; max_count: string; max_amount: string }
type Caps = Record<string, { max_count?: number; max_amount?: string }>;

const capsToRows = (caps: Caps | null | undefined): CapRow[] =>
  Object.entries(caps ?? {}).map(([currency, c]) => ({ currency, max_count: c.max_count === undefined ? '' : String(c.max_count), max_amount: c.max_amount ?? '' }));
const rowsToCaps = (rows: CapRow[]): Caps | null => {
  const filled = rows.filter((r) => r.currency.trim());
  if (filled.length === 0) return null;
  return Object.fromEntries(filled.map((r) => [r.currency.trim().toUpperCase(), {
    ...(r.max_count ? { max_count: Number(r.max_count) } : {}), ...(r.max_amount ? { max_amount: r.max_amount } : {}),
  }]));
};

type Usage = Record<string, { count: number; amount: string }>;

/** Each cap beside what the MID carried today ("EUR: 312 of 1000 payments, €15,840.50 of €50,000.00 today"). */
function capsWithUsage(caps: Caps, today: Usage): string {
  const shown = Object.entries(caps).map(([currency, cap]) => {
    const used = today[currency] ?? { count: 0, amount: '0' };
    const parts = [
      cap.max_count !== undefined && `${used.count} of ${cap.max_count} payments`,
      cap.max_amount && `${formatMoney(used.amount, currency)} of ${formatMoney(cap.max_amount, currency)}`,
    ].filter(Boolean);
    return `${currency}: ${parts.join(', ')} today`;
  });
  return shown.join('; ') || 'none';
}

/** Daily volume caps per currency (a payment count, an amount, or both); none: no cap. */
function DailyCaps({ rows, onChange }: { rows: CapRow[]; onChange: (rows: CapRow[]) => void }) {
  const set = (i: number, patch: Partial<CapRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="switch-group">
      <legend>Daily caps (per UTC day; none: no cap)</legend>
      {rows.map((r, i) => (
        <div key={i} className="grid">
          <Field label={`Cap ${i + 1} currency`} path={`daily_caps.${r.currency.toUpperCase()}`}>{(id, aria) => <input id={id} {...aria} maxLength={3} value={r.currency} onChange={(e) => set(i, { currency: e.target.value })} />}</Field>
          <Field label={`Cap ${i + 1} payments`}>{(id) => <input id={id} type="number" min={0} value={r.max_count} onChange={(e) => set(i, { max_count: e.target.value })} />}</Field>
          <Field label={`Cap ${i + 1} amount`}>{(id) => <input id={id} inputMode="decimal" value={r.max_amount} onChange={(e) => set(i, { max_amount: e.target.value })} />}</Field>
          <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>Remove cap {i + 1}</button>
        </div>
      ))}
      <InlineErrors path="daily_caps" exact />
      <button type="button" onClick={() => onChange([...rows, { currency: '', max_count: '', max_amount: '' }])}>Add a daily cap</button>
    </fieldset>
  );
}

const withoutEmpty = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '' && v !== undefined));

function MidForm({ merchantId, connectors, mid, done, onCancel }: { merchantId: string; connectors: Connector[]; mid?: Mid; done: () => void; onCancel?: () => void }) {
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
  const [caps, setCaps] = useState<CapRow[]>(capsToRows(mid?.daily_caps as Caps | null | undefined));
  const schema = connectors.find((c) => c.name === connector);
  const { busy, error, submit } = useSubmit(async () => {
    const creds = withoutEmpty(credentials) as Record<string, string>;
    const common = {
      name: name || undefined, payment_mode: mode, descriptor: descriptor || null, card_on_file_support: cof,
      currencies: currencies.trim() ? currencies.split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase()) : null,
      min_amount: minAmount || null, max_amount: maxAmount || null, settings: withoutEmpty(settings), daily_caps: rowsToCaps(caps) as never,
      ...(Object.keys(creds).length > 0 ? { credentials: creds } : {}),
    };
    if (mid) await call('patch', '/admin/v1/merchants/{id}/mids/{midId}', { params: { id: merchantId, midId: mid.id }, body: common });
    else await call('post', '/admin/v1/merchants/{id}/mids', { params: { id: merchantId }, body: { connector, ...common } });
    done();
  });
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
    <form onSubmit={(e) => void submit(e)} className="card" aria-label={mid ? `Edit MID ${mid.name}` : 'New MID'} noValidate>
      <h2>{mid ? `Edit ${mid.name}` : 'New MID'}</h2>
      <div className="grid">
        <Field path="connector" label="Connector">{(id) => (
          <select id={id} value={connector} disabled={Boolean(mid)} onChange={(e) => { setConnector(e.target.value); setSettings({}); setCredentials({}); }}>
            {connectors.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
          </select>)}
        </Field>
        <Field path="name" label="Name">{(id, aria) => <input id={id} {...aria} value={name} placeholder={connector} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field path="payment_mode" label="Payment mode" hint="SMS takes sales, DMS authorizations, SMS/DMS both.">{(id) => (
          <select id={id} value={mode} onChange={(e) => setMode(e.target.value as Mode)}><option>SMS/DMS</option><option>SMS</option><option>DMS</option></select>)}
        </Field>
        <Field path="currencies" label="Currencies" hint="ISO codes, comma separated; empty: any.">{(id, aria) => <input id={id} {...aria} value={currencies} onChange={(e) => setCurrencies(e.target.value)} />}</Field>
        <Field path="min_amount" label="Minimum amount">{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={minAmount} onChange={(e) => setMinAmount(e.target.value)} />}</Field>
        <Field path="max_amount" label="Maximum amount">{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={maxAmount} onChange={(e) => setMaxAmount(e.target.value)} />}</Field>
        <Field path="descriptor" label="Descriptor">{(id, aria) => <input id={id} {...aria} value={descriptor} onChange={(e) => setDescriptor(e.target.value)} />}</Field>
        <label className="check"><input type="checkbox" checked={cof} onChange={(e) => setCof(e.target.checked)} /> Card on file support</label>
      </div>
      <DailyCaps rows={caps} onChange={setCaps} />
      <SchemaForm legend="Connector settings" path="settings" schema={(schema?.settings_schema ?? null) as ObjectSchema | null} values={settings} onChange={setSettings} />
      <SchemaForm legend="Credentials" path="credentials" secret schema={(schema?.credentials_schema ?? null) as ObjectSchema | null} values={credentials} onChange={setCredentials} masked={mid?.credentials ?? null} />
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{mid ? 'Save MID' : 'Create MID'}</button>{onCancel && <button type="button" onClick={onCancel}>Cancel</button>}</div>
    </form>
    </FieldErrors.Provider>
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
              done={() => { setEditing(undefined); data.reload(); }} onCancel={() => setEditing(undefined)} />
          )}
          {moveError && <ErrorNote error={moveError} />}
          {d.mids.length === 0 ? <Empty>No MID yet: the merchant cannot take payments.</Empty> : (
            <Table label="MIDs, highest priority first">
              <thead><tr><th scope="col">Priority</th><th scope="col">Name</th><th scope="col">Connector</th><th scope="col">Mode</th><th scope="col">Currencies</th><th scope="col">Daily caps</th><th scope="col">Credentials</th><th scope="col">State</th>{writable && <th scope="col">Actions</th>}</tr></thead>
              <tbody>{d.mids.map((m, i) => (
                <tr key={m.id}>
                  <td>{m.priority}</td><td>{m.name}</td><td>{m.connector}</td><td>{m.payment_mode}</td>
                  <td>{m.currencies?.join(', ') ?? 'any'}</td>
                  <td>{capsWithUsage((m.daily_caps ?? {}) as Caps, m.today?.volume ?? {})}</td>
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
