import { useState } from 'react';
import { call, type Answer, type Mid } from '../api/client';
import { useCan } from '../session';
import { formatMoney } from '../format';
import { SchemaForm, type ObjectSchema } from '../SchemaForm';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, InlineErrors, Show, Table, errorsByField, useLoad, useSubmit } from '../ui';
import { useUnsavedForm } from '../comfort';
import { fill, useT, type Translate } from '../i18n';

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
function capsWithUsage(caps: Caps, today: Usage, t: Translate): string {
  const shown = Object.entries(caps).map(([currency, cap]) => {
    const used = today[currency] ?? { count: 0, amount: '0' };
    const parts = [
      cap.max_count !== undefined && fill(t('merchant.capCount'), { used: used.count, cap: cap.max_count }),
      cap.max_amount && fill(t('merchant.capAmount'), { used: formatMoney(used.amount, currency), cap: formatMoney(cap.max_amount, currency) }),
    ].filter(Boolean);
    return fill(t('merchant.capToday'), { currency, parts: parts.join(', ') });
  });
  return shown.join('; ') || t('ui.none');
}

/** Daily volume caps per currency (a payment count, an amount, or both); none: no cap. */
function DailyCaps({ rows, onChange }: { rows: CapRow[]; onChange: (rows: CapRow[]) => void }) {
  const t = useT();
  const set = (i: number, patch: Partial<CapRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="switch-group">
      <legend>{t('merchant.capsLegend')}</legend>
      {rows.map((r, i) => (
        <div key={i} className="grid">
          <Field label={fill(t('merchant.capCurrency'), { n: i + 1 })} path={`daily_caps.${r.currency.toUpperCase()}`}>{(id, aria) => <input id={id} {...aria} maxLength={3} value={r.currency} onChange={(e) => set(i, { currency: e.target.value })} />}</Field>
          <Field label={fill(t('merchant.capPayments'), { n: i + 1 })}>{(id) => <input id={id} type="number" min={0} value={r.max_count} onChange={(e) => set(i, { max_count: e.target.value })} />}</Field>
          <Field label={fill(t('merchant.capAmountLabel'), { n: i + 1 })}>{(id) => <input id={id} inputMode="decimal" value={r.max_amount} onChange={(e) => set(i, { max_amount: e.target.value })} />}</Field>
          <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>{fill(t('merchant.capRemove'), { n: i + 1 })}</button>
        </div>
      ))}
      <InlineErrors path="daily_caps" exact />
      <button type="button" onClick={() => onChange([...rows, { currency: '', max_count: '', max_amount: '' }])}>{t('merchant.capAdd')}</button>
    </fieldset>
  );
}

const withoutEmpty = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '' && v !== undefined));

function MidForm({ merchantId, connectors, mid, done, onCancel }: { merchantId: string; connectors: Connector[]; mid?: Mid; done: () => void; onCancel?: () => void }) {
  const t = useT();
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
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    const creds = withoutEmpty(credentials) as Record<string, string>;
    const common = {
      name: name || undefined, payment_mode: mode, descriptor: descriptor || null, card_on_file_support: cof,
      currencies: currencies.trim() ? currencies.split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase()) : null,
      min_amount: minAmount || null, max_amount: maxAmount || null, settings: withoutEmpty(settings), daily_caps: rowsToCaps(caps) as never,
      ...(Object.keys(creds).length > 0 ? { credentials: creds } : {}),
    };
    if (mid) await call('patch', '/admin/v1/merchants/{id}/mids/{midId}', { params: { id: merchantId, midId: mid.id }, body: common, conditional: true });
    else await call('post', '/admin/v1/merchants/{id}/mids', { params: { id: merchantId }, body: { connector, ...common } });
    done();
    unsaved.saved();
  });
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
    <form {...unsaved.form} onSubmit={(e) => void submit(e)} className="card" aria-label={mid ? fill(t('merchant.editMid'), { name: mid.name }) : t('merchant.newMid')} noValidate>
      <h2>{mid ? fill(t('merchant.editName'), { name: mid.name }) : t('merchant.newMid')}</h2>
      <div className="grid">
        <Field path="connector" label={t('merchant.connector')}>{(id) => (
          <select id={id} value={connector} disabled={Boolean(mid)} onChange={(e) => { setConnector(e.target.value); setSettings({}); setCredentials({}); }}>
            {connectors.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
          </select>)}
        </Field>
        <Field path="name" label={t('common.name')}>{(id, aria) => <input id={id} {...aria} value={name} placeholder={connector} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field path="payment_mode" label={t('merchant.paymentMode')} hint={t('merchant.paymentModeHint')}>{(id) => (
          <select id={id} value={mode} onChange={(e) => setMode(e.target.value as Mode)}><option>SMS/DMS</option><option>SMS</option><option>DMS</option></select>)}
        </Field>
        <Field path="currencies" label={t('merchant.currencies')} hint={t('merchant.currenciesHint')}>{(id, aria) => <input id={id} {...aria} value={currencies} onChange={(e) => setCurrencies(e.target.value)} />}</Field>
        <Field path="min_amount" label={t('merchant.minAmount')}>{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={minAmount} onChange={(e) => setMinAmount(e.target.value)} />}</Field>
        <Field path="max_amount" label={t('merchant.maxAmount')}>{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={maxAmount} onChange={(e) => setMaxAmount(e.target.value)} />}</Field>
        <Field path="descriptor" label={t('merchant.descriptor')}>{(id, aria) => <input id={id} {...aria} value={descriptor} onChange={(e) => setDescriptor(e.target.value)} />}</Field>
        <label className="check"><input type="checkbox" checked={cof} onChange={(e) => setCof(e.target.checked)} /> {t('merchant.cofSupport')}</label>
      </div>
      <DailyCaps rows={caps} onChange={setCaps} />
      <SchemaForm legend={t('merchant.connectorSettings')} path="settings" schema={(schema?.settings_schema ?? null) as ObjectSchema | null} values={settings} onChange={setSettings} />
      <SchemaForm legend={t('merchant.credentials')} path="credentials" secret schema={(schema?.credentials_schema ?? null) as ObjectSchema | null} values={credentials} onChange={setCredentials} masked={mid?.credentials ?? null} />
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{mid ? t('merchant.saveMid') : t('merchant.createMid')}</button>{onCancel && <button type="button" onClick={onCancel}>{t('ui.cancel')}</button>}</div>
    </form>
    </FieldErrors.Provider>
  );
}

/** Editing opens the MID as stored now; its read's ETag goes back with the save, so a MID changed since is not overwritten. */
function EditMid({ merchantId, midId, connectors, done, onCancel }: { merchantId: string; midId: string; connectors: Connector[]; done: () => void; onCancel: () => void }) {
  const mid = useLoad(() => call('get', '/admin/v1/merchants/{id}/mids/{midId}', { params: { id: merchantId, midId } }), midId);
  return <Show loaded={mid} what="the MID">{(m) => <MidForm merchantId={merchantId} connectors={connectors} mid={m} done={done} onCancel={onCancel} />}</Show>;
}

export function Mids({ merchantId }: { merchantId: string }) {
  const t = useT();
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
          {writable && editing === undefined && <button type="button" className="primary" onClick={() => setEditing('new')}>{t('merchant.newMid')}</button>}
          {editing === 'new' && <MidForm key={editing} merchantId={merchantId} connectors={d.connectors} done={() => { setEditing(undefined); data.reload(); }} onCancel={() => setEditing(undefined)} />}
          {editing !== undefined && editing !== 'new' && (
            <EditMid key={editing} merchantId={merchantId} midId={editing} connectors={d.connectors}
              done={() => { setEditing(undefined); data.reload(); }} onCancel={() => setEditing(undefined)} />
          )}
          {moveError && <ErrorNote error={moveError} />}
          {d.mids.length === 0 ? <Empty>{t('merchant.noMid')}</Empty> : (
            <Table label={t('merchant.midsTable')}>
              <thead><tr><th scope="col">{t('merchant.priority')}</th><th scope="col">{t('common.name')}</th><th scope="col">{t('merchant.connector')}</th><th scope="col">{t('merchants.mode')}</th><th scope="col">{t('merchant.currencies')}</th><th scope="col">{t('merchant.dailyCaps')}</th><th scope="col">{t('merchant.credentials')}</th><th scope="col">{t('common.state')}</th>{writable && <th scope="col">{t('merchant.actions')}</th>}</tr></thead>
              <tbody>{d.mids.map((m, i) => (
                <tr key={m.id}>
                  <td>{m.priority}</td><td>{m.name}</td><td>{m.connector}</td><td>{m.payment_mode}</td>
                  <td>{m.currencies?.join(', ') ?? t('merchant.anyCurrency')}</td>
                  <td>{capsWithUsage((m.daily_caps ?? {}) as Caps, m.today?.volume ?? {}, t)}</td>
                  <td>{m.credentials ? Object.entries(m.credentials).map(([k, v]) => `${k} ${v}`).join(', ') : '—'}</td>
                  <td>{m.enabled ? t('merchants.enabledState') : <span className="badge badge-decline">{t('merchants.disabledState')}</span>}</td>
                  {writable && (
                    <td className="row-actions">
                      <button type="button" aria-label={fill(t('merchant.moveUp'), { name: m.name })} disabled={i === 0} onClick={() => void move(d.mids, i, -1).catch(setMoveError)}>↑</button>
                      <button type="button" aria-label={fill(t('merchant.moveDown'), { name: m.name })} disabled={i === d.mids.length - 1} onClick={() => void move(d.mids, i, 1).catch(setMoveError)}>↓</button>
                      <button type="button" onClick={() => setEditing(m.id)}>{t('merchant.edit')}</button>
                      {m.enabled
                        ? <ConfirmButton label={t('merchant.disable')} danger title={fill(t('merchant.disableMid'), { name: m.name })} action={async () => { await call('post', '/admin/v1/merchants/{id}/mids/{midId}/disable', { params: { id: merchantId, midId: m.id } }); data.reload(); }} />
                        : <ConfirmButton label={t('merchant.enable')} title={fill(t('merchant.enableMid'), { name: m.name })} action={async () => { await call('post', '/admin/v1/merchants/{id}/mids/{midId}/enable', { params: { id: merchantId, midId: m.id } }); data.reload(); }} />}
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
