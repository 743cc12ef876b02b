import { useState } from 'react';
import { Link, NavLink, Route, Routes, useParams } from 'react-router';
import { call, type Answer, type Merchant, type Settings } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton, ErrorNote, Field, Show, ShownOnce, useLoad, useSubmit } from '../ui';
import { Mids } from './Mids';
import { Wallets } from './Wallets';
import { Routing } from './Routing';
import { ConnectorOptions, PayerRetries } from './MerchantOptions';

type Catalog = Answer<'/admin/v1/protocol-mapping', 'get'>;
type FieldName = NonNullable<Answer<'/admin/v1/merchants/{id}/settings', 'get'>['callback_fields']>[number];
type PatchSettings = NonNullable<Parameters<typeof call<'/admin/v1/merchants/{id}/settings', 'patch'>>[2]>['body'];

/** How the optional fields are grouped on screen. */
function groupOf(name: string): string {
  if (name.startsWith('payer_')) return 'Payer';
  if (['card', 'card_expiration_date', 'brand', 'rrn', 'approval_code'].includes(name)) return 'Card and acquirer';
  if (['3ds', 'browser', 'customer_ip'].includes(name)) return '3-D Secure and browser';
  if (['initiator', 'source', 'sequence'].includes(name)) return 'Card on file';
  return 'Payment and gateway';
}

function General({ merchant, done }: { merchant: Merchant; done: () => void }) {
  const can = useCan();
  const [name, setName] = useState(merchant.name);
  const [url, setUrl] = useState(merchant.notification_url ?? '');
  const [sandbox, setSandbox] = useState(merchant.sandbox);
  const [hash, setHash] = useState(merchant.hash_algorithm);
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    await call('patch', '/admin/v1/merchants/{id}', { params: { id: merchant.id }, body: { name, notification_url: url || null, sandbox, hash_algorithm: hash } });
    setSaved(true);
    done();
  });
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby="general" className="card">
      <h2 id="general">General</h2>
      <fieldset disabled={!can('merchants.write')} className="grid">
        <Field label="Name">{(id) => <input id={id} required value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field label="Notification URL">{(id) => <input id={id} type="url" value={url} onChange={(e) => setUrl(e.target.value)} />}</Field>
        <Field label="Hash algorithm">{(id) => <select id={id} value={hash} onChange={(e) => setHash(e.target.value as 'md5' | 'sha256')}><option value="sha256">sha256</option><option value="md5">md5</option></select>}</Field>
        <label className="check"><input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.target.checked)} /> Sandbox</label>
      </fieldset>
      {error && <ErrorNote error={error} />}
      {can('merchants.write') && <div className="actions"><button type="submit" className="primary" disabled={busy}>Save</button>{saved && <span role="status">Saved.</span>}</div>}
    </form>
  );
}

function ProtocolMapping({ merchantId, settings, catalog, done }: { merchantId: string; settings: Settings; catalog: Catalog; done: () => void }) {
  const can = useCan();
  const writable = can('merchants.write');
  const [callbackFields, setCallbackFields] = useState(new Set<string>(settings.callback_fields));
  const [statusFields, setStatusFields] = useState(new Set<string>(settings.status_fields));
  const [returnParams, setReturnParams] = useState(new Set<string>(settings.return_params));
  const [checkoutMethod, setCheckoutMethod] = useState(settings.checkout_payment_method);
  const [linkTarget, setLinkTarget] = useState<string>((settings.override_link_target as string | null) ?? '');
  const [payerFields, setPayerFields] = useState<Record<string, string>>({ ...settings.payer_fields });
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    const body = {
      callback_fields: [...callbackFields], status_fields: [...statusFields], return_params: [...returnParams],
      checkout_payment_method: checkoutMethod, override_link_target: linkTarget || null, payer_fields: payerFields,
    } as PatchSettings;
    await call('patch', '/admin/v1/merchants/{id}/settings', { params: { id: merchantId }, body });
    setSaved(true);
    done();
  });
  const toggle = (set: Set<string>, update: (s: Set<string>) => void, name: string) => {
    const next = new Set(set);
    if (next.has(name)) next.delete(name); else next.add(name);
    update(next);
    setSaved(false);
  };
  const groups = new Map<string, Catalog['optional_fields']>();
  for (const f of catalog.optional_fields) groups.set(groupOf(f.name), [...(groups.get(groupOf(f.name)) ?? []), f]);
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby="mapping" className="card">
      <h2 id="mapping">Protocol Mapping</h2>
      <p className="sub">Which optional fields the merchant gets in callbacks and, separately, in status answers.</p>
      <fieldset disabled={!writable}>
        {[...groups.entries()].map(([group, fields]) => (
          <fieldset key={group} className="switch-group">
            <legend>{group}</legend>
            <div className="switch-head" aria-hidden="true"><span>Field</span><span>Callback</span><span>Status</span></div>
            {fields.map((f) => (
              <div key={f.name} className="switch-row">
                <span title={f.note}>{f.name} {f.wire.join(',') !== f.name && <small>{f.wire.join(', ')}</small>}</span>
                <label className="switch"><input type="checkbox" role="switch" checked={callbackFields.has(f.name)} onChange={() => toggle(callbackFields, setCallbackFields, f.name)} /><span className="sr-only">{f.name} in callbacks</span></label>
                <label className="switch"><input type="checkbox" role="switch" checked={statusFields.has(f.name)} onChange={() => toggle(statusFields, setStatusFields, f.name)} /><span className="sr-only">{f.name} in status answers</span></label>
              </div>
            ))}
          </fieldset>
        ))}
        <fieldset className="switch-group">
          <legend>Return additional parameters (appended to success and cancel URLs)</legend>
          {catalog.return_params.map((p) => (
            <label key={p} className="check"><input type="checkbox" checked={returnParams.has(p)} onChange={() => toggle(returnParams, setReturnParams, p)} /> {p}</label>
          ))}
        </fieldset>
        <div className="grid">
          <Field label="Override link target">{(id) => (
            <select id={id} value={linkTarget} onChange={(e) => setLinkTarget(e.target.value)}>
              <option value="">No override (the merchant's own)</option>
              {catalog.link_targets.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>)}
          </Field>
          <label className="check"><input type="checkbox" checked={checkoutMethod} onChange={(e) => setCheckoutMethod(e.target.checked)} /> Checkout payment method option</label>
        </div>
        <fieldset className="switch-group">
          <legend>S2S CARD payer fields</legend>
          <div className="grid">
            {catalog.payer_fields.map((f) => (
              <Field key={f} label={f}>{(id) => (
                <select id={id} value={payerFields[f] ?? 'optional'} onChange={(e) => setPayerFields({ ...payerFields, [f]: e.target.value })}>
                  <option value="optional">Optional</option><option value="required">Required</option>
                </select>)}
              </Field>
            ))}
          </div>
        </fieldset>
      </fieldset>
      {error && <ErrorNote error={error} />}
      {writable && <div className="actions"><button type="submit" className="primary" disabled={busy}>Save Protocol Mapping</button>{saved && <span role="status">Saved.</span>}</div>}
    </form>
  );
}

function Lifecycle({ merchant, done }: { merchant: Merchant; done: () => void }) {
  const [password, setPassword] = useState<Answer<'/admin/v1/merchants/{id}/password', 'post'>>();
  return (
    <section aria-labelledby="lifecycle" className="card">
      <h2 id="lifecycle">Password and state</h2>
      {password && <ShownOnce label="New password" value={password.password} />}
      <div className="actions">
        <ConfirmButton label="Rotate password…" confirmLabel="Rotate" title={`Rotate ${merchant.name}'s password`}
          action={async () => { setPassword(await call('post', '/admin/v1/merchants/{id}/password', { params: { id: merchant.id }, body: {} })); done(); }}>
          <p>A new password is made and shown once. The old one keeps working for a grace period, so the merchant can switch.</p>
        </ConfirmButton>
        {merchant.disabled
          ? <ConfirmButton label="Enable…" confirmLabel="Enable" title={`Enable ${merchant.name}`} action={async () => { await call('post', '/admin/v1/merchants/{id}/enable', { params: { id: merchant.id } }); done(); }} />
          : <ConfirmButton label="Disable…" confirmLabel="Disable" danger title={`Disable ${merchant.name}`} action={async () => { await call('post', '/admin/v1/merchants/{id}/disable', { params: { id: merchant.id } }); done(); }}>
              <p>Every request of a disabled merchant is refused as an unknown merchant's. Nothing is deleted.</p>
            </ConfirmButton>}
      </div>
    </section>
  );
}

function SettingsTab({ merchant, reload }: { merchant: Merchant; reload: () => void }) {
  const can = useCan();
  const data = useLoad(async () => {
    const [settings, catalog] = await Promise.all([
      call('get', '/admin/v1/merchants/{id}/settings', { params: { id: merchant.id } }),
      call('get', '/admin/v1/protocol-mapping'),
    ]);
    return { settings, catalog };
  }, merchant.id);
  return (
    <>
      <General merchant={merchant} done={reload} />
      <Show loaded={data} what="settings">
        {(d) => (
          <>
            <ProtocolMapping merchantId={merchant.id} settings={d.settings} catalog={d.catalog} done={data.reload} />
            <PayerRetries merchantId={merchant.id} settings={d.settings} done={data.reload} />
            <ConnectorOptions merchantId={merchant.id} options={d.settings.connector_options} done={data.reload} />
          </>
        )}
      </Show>
      {can('merchants.write') && <Lifecycle merchant={merchant} done={reload} />}
    </>
  );
}

export function MerchantPage() {
  const { id = '' } = useParams();
  const merchant = useLoad(() => call('get', '/admin/v1/merchants/{id}', { params: { id } }), id);
  return (
    <Show loaded={merchant} what="the merchant">
      {(m) => (
        <>
          <p className="crumbs"><Link to="/merchants">Merchants</Link> / {m.name}</p>
          <h1>{m.name} {m.disabled && <span className="badge badge-decline">disabled</span>}</h1>
          <p className="sub">Merchant key <code>{m.merchant_key}</code> · {m.sandbox ? 'sandbox' : 'live'}</p>
          <nav aria-label="Merchant sections" className="tabs">
            <NavLink to={`/merchants/${m.id}`} end>Settings</NavLink>
            <NavLink to={`/merchants/${m.id}/mids`}>MIDs</NavLink>
            <NavLink to={`/merchants/${m.id}/routing`}>Routing</NavLink>
            <NavLink to={`/merchants/${m.id}/wallets`}>Wallets</NavLink>
            <NavLink to={`/payments?merchant_id=${encodeURIComponent(m.id)}`}>Payments</NavLink>
          </nav>
          <Routes>
            <Route index element={<SettingsTab merchant={m} reload={merchant.reload} />} />
            <Route path="mids" element={<Mids merchantId={m.id} />} />
            <Route path="routing" element={<Routing merchantId={m.id} />} />
            <Route path="wallets" element={<Wallets merchantId={m.id} />} />
          </Routes>
        </>
      )}
    </Show>
  );
}
