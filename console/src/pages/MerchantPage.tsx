import { useState } from 'react';
import { Link, NavLink, Route, Routes, useParams } from 'react-router';
import { call, type Answer, type Merchant, type Settings } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton, ErrorNote, Field, Show, ShownOnce, useLoad, useSubmit } from '../ui';
import { Mids } from './Mids';
import { Wallets } from './Wallets';
import { Routing } from './Routing';
import { ConnectorOptions, PayerRetries } from './MerchantOptions';
import { MerchantWebhooks } from './MerchantWebhooks';
import { useUnsavedForm } from '../comfort';
import { fill, useT, type Key } from '../i18n';

type Catalog = Answer<'/admin/v1/protocol-mapping', 'get'>;
type FieldName = NonNullable<Answer<'/admin/v1/merchants/{id}/settings', 'get'>['callback_fields']>[number];
type PatchSettings = NonNullable<Parameters<typeof call<'/admin/v1/merchants/{id}/settings', 'patch'>>[2]>['body'];

/** How the optional fields are grouped on screen. */
function groupOf(name: string): Key {
  if (name.startsWith('payer_')) return 'merchant.groupPayer';
  if (['card', 'card_expiration_date', 'brand', 'rrn', 'approval_code'].includes(name)) return 'merchant.groupCard';
  if (['3ds', 'browser', 'customer_ip'].includes(name)) return 'merchant.group3ds';
  if (['initiator', 'source', 'sequence'].includes(name)) return 'merchant.groupCof';
  return 'merchant.groupPayment';
}

function General({ merchant, done }: { merchant: Merchant; done: () => void }) {
  const t = useT();
  const can = useCan();
  const [name, setName] = useState(merchant.name);
  const [url, setUrl] = useState(merchant.notification_url ?? '');
  const [sandbox, setSandbox] = useState(merchant.sandbox);
  const [hash, setHash] = useState(merchant.hash_algorithm);
  const [saved, setSaved] = useState(false);
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    await call('patch', '/admin/v1/merchants/{id}', { params: { id: merchant.id }, body: { name, notification_url: url || null, sandbox, hash_algorithm: hash }, conditional: true });
    setSaved(true);
    done();
    unsaved.saved();
  });
  return (
    <form {...unsaved.form} onSubmit={(e) => void submit(e)} aria-labelledby="general" className="card">
      <h2 id="general">{t('merchant.general')}</h2>
      <fieldset disabled={!can('merchants.write')} className="grid">
        <Field label={t('common.name')}>{(id) => <input id={id} required value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field label={t('merchants.notificationUrl')}>{(id) => <input id={id} type="url" value={url} onChange={(e) => setUrl(e.target.value)} />}</Field>
        <Field label={t('merchants.hashAlgorithm')}>{(id) => <select id={id} value={hash} onChange={(e) => setHash(e.target.value as 'md5' | 'sha256')}><option value="sha256">sha256</option><option value="md5">md5</option></select>}</Field>
        <label className="check"><input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.target.checked)} /> {t('merchant.sandbox')}</label>
      </fieldset>
      {error && <ErrorNote error={error} />}
      {can('merchants.write') && <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('merchant.save')}</button>{saved && <span role="status">{t('merchant.saved')}</span>}</div>}
    </form>
  );
}

/** Issue 30 item 3: the settings an operator may let the merchant's users change in the portal (portal_editable_settings). */
const PORTAL_EDITABLE = [['callback_fields', 'merchant.portalCallbackFields'], ['status_fields', 'merchant.portalStatusFields'], ['return_params', 'merchant.portalReturnParams']] as const;

function ProtocolMapping({ merchantId, settings, catalog, done }: { merchantId: string; settings: Settings; catalog: Catalog; done: () => void }) {
  const t = useT();
  const can = useCan();
  const writable = can('merchants.write');
  const [callbackFields, setCallbackFields] = useState(new Set<string>(settings.callback_fields));
  const [statusFields, setStatusFields] = useState(new Set<string>(settings.status_fields));
  const [returnParams, setReturnParams] = useState(new Set<string>(settings.return_params));
  const [checkoutMethod, setCheckoutMethod] = useState(settings.checkout_payment_method);
  const [linkTarget, setLinkTarget] = useState<string>((settings.override_link_target as string | null) ?? '');
  const [payerFields, setPayerFields] = useState<Record<string, string>>({ ...settings.payer_fields });
  const [portalEditable, setPortalEditable] = useState(new Set<string>(settings.portal_editable_settings));
  const [saved, setSaved] = useState(false);
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    const body = {
      callback_fields: [...callbackFields], status_fields: [...statusFields], return_params: [...returnParams],
      checkout_payment_method: checkoutMethod, override_link_target: linkTarget || null, payer_fields: payerFields,
      portal_editable_settings: PORTAL_EDITABLE.map(([name]) => name).filter((name) => portalEditable.has(name)),
    } as PatchSettings;
    await call('patch', '/admin/v1/merchants/{id}/settings', { params: { id: merchantId }, body, conditional: true });
    setSaved(true);
    done();
    unsaved.saved();
  });
  const toggle = (set: Set<string>, update: (s: Set<string>) => void, name: string) => {
    const next = new Set(set);
    if (next.has(name)) next.delete(name); else next.add(name);
    update(next);
    setSaved(false);
  };
  const groups = new Map<Key, Catalog['optional_fields']>();
  for (const f of catalog.optional_fields) groups.set(groupOf(f.name), [...(groups.get(groupOf(f.name)) ?? []), f]);
  return (
    <form {...unsaved.form} onSubmit={(e) => void submit(e)} aria-labelledby="mapping" className="card">
      <h2 id="mapping">{t('merchant.mapping')}</h2>
      <p className="sub">{t('merchant.mappingExplain')}</p>
      <fieldset disabled={!writable}>
        {[...groups.entries()].map(([group, fields]) => (
          <fieldset key={group} className="switch-group">
            <legend>{t(group)}</legend>
            <div className="switch-head" aria-hidden="true"><span>{t('merchant.field')}</span><span>{t('merchant.callback')}</span><span>{t('merchant.status')}</span></div>
            {fields.map((f) => (
              <div key={f.name} className="switch-row">
                <span title={f.note}>{f.name} {f.wire.join(',') !== f.name && <small>{f.wire.join(', ')}</small>}</span>
                <label className="switch"><input type="checkbox" role="switch" checked={callbackFields.has(f.name)} onChange={() => toggle(callbackFields, setCallbackFields, f.name)} /><span className="sr-only">{fill(t('merchant.inCallbacks'), { field: f.name })}</span></label>
                <label className="switch"><input type="checkbox" role="switch" checked={statusFields.has(f.name)} onChange={() => toggle(statusFields, setStatusFields, f.name)} /><span className="sr-only">{fill(t('merchant.inStatus'), { field: f.name })}</span></label>
              </div>
            ))}
          </fieldset>
        ))}
        <fieldset className="switch-group">
          <legend>{t('merchant.returnParams')}</legend>
          {catalog.return_params.map((p) => (
            <label key={p} className="check"><input type="checkbox" checked={returnParams.has(p)} onChange={() => toggle(returnParams, setReturnParams, p)} /> {p}</label>
          ))}
        </fieldset>
        <fieldset className="switch-group">
          <legend>{t('merchant.portalEditable')}</legend>
          {PORTAL_EDITABLE.map(([name, label]) => (
            <label key={name} className="check"><input type="checkbox" checked={portalEditable.has(name)} onChange={() => toggle(portalEditable, setPortalEditable, name)} /> {t(label)}</label>
          ))}
        </fieldset>
        <div className="grid">
          <Field label={t('merchant.overrideLinkTarget')}>{(id) => (
            <select id={id} value={linkTarget} onChange={(e) => setLinkTarget(e.target.value)}>
              <option value="">{t('merchant.noOverride')}</option>
              {catalog.link_targets.map((lt) => <option key={lt} value={lt}>{lt}</option>)}
            </select>)}
          </Field>
          <label className="check"><input type="checkbox" checked={checkoutMethod} onChange={(e) => setCheckoutMethod(e.target.checked)} /> {t('merchant.checkoutMethod')}</label>
        </div>
        <fieldset className="switch-group">
          <legend>{t('merchant.payerFields')}</legend>
          <div className="grid">
            {catalog.payer_fields.map((f) => (
              <Field key={f} label={f}>{(id) => (
                <select id={id} value={payerFields[f] ?? 'optional'} onChange={(e) => setPayerFields({ ...payerFields, [f]: e.target.value })}>
                  <option value="optional">{t('merchant.optional')}</option><option value="required">{t('merchant.required')}</option>
                </select>)}
              </Field>
            ))}
          </div>
        </fieldset>
      </fieldset>
      {error && <ErrorNote error={error} />}
      {writable && <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('merchant.saveMapping')}</button>{saved && <span role="status">{t('merchant.saved')}</span>}</div>}
    </form>
  );
}

function Lifecycle({ merchant, done }: { merchant: Merchant; done: () => void }) {
  const t = useT();
  const [password, setPassword] = useState<Answer<'/admin/v1/merchants/{id}/password', 'post'>>();
  return (
    <section aria-labelledby="lifecycle" className="card">
      <h2 id="lifecycle">{t('merchant.lifecycle')}</h2>
      {password && <ShownOnce label={t('merchant.newPassword')} value={password.password} />}
      <div className="actions">
        <ConfirmButton label={t('merchant.rotatePassword')} confirmLabel={t('merchant.rotate')} title={fill(t('merchant.rotatePasswordTitle'), { name: merchant.name })}
          action={async () => { setPassword(await call('post', '/admin/v1/merchants/{id}/password', { params: { id: merchant.id }, body: {} })); done(); }}>
          <p>{t('merchant.rotatePasswordExplain')}</p>
        </ConfirmButton>
        {merchant.disabled
          ? <ConfirmButton label={t('merchant.enableAsk')} confirmLabel={t('merchant.enable')} title={fill(t('merchant.enableTitle'), { name: merchant.name })} action={async () => { await call('post', '/admin/v1/merchants/{id}/enable', { params: { id: merchant.id } }); done(); }} />
          : <ConfirmButton label={t('merchant.disableAsk')} confirmLabel={t('merchant.disable')} danger title={fill(t('merchant.disableTitle'), { name: merchant.name })} action={async () => { await call('post', '/admin/v1/merchants/{id}/disable', { params: { id: merchant.id } }); done(); }}>
              <p>{t('merchant.disableExplain')}</p>
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
  const t = useT();
  const { id = '' } = useParams();
  const merchant = useLoad(() => call('get', '/admin/v1/merchants/{id}', { params: { id } }), id);
  return (
    <Show loaded={merchant} what="the merchant">
      {(m) => (
        <>
          <p className="crumbs"><Link to="/merchants">{t('merchant.merchants')}</Link> / {m.name}</p>
          <h1>{m.name} {m.disabled && <span className="badge badge-decline">{t('merchants.disabledState')}</span>}</h1>
          <p className="sub">{t('merchants.key')} <code>{m.merchant_key}</code> · {m.sandbox ? t('merchants.sandbox') : t('merchants.live')}</p>
          <nav aria-label={t('merchant.sections')} className="tabs">
            <NavLink to={`/merchants/${m.id}`} end>{t('merchant.tabSettings')}</NavLink>
            <NavLink to={`/merchants/${m.id}/mids`}>{t('merchant.tabMids')}</NavLink>
            <NavLink to={`/merchants/${m.id}/routing`}>{t('merchant.tabRouting')}</NavLink>
            <NavLink to={`/merchants/${m.id}/wallets`}>{t('merchant.tabWallets')}</NavLink>
            <NavLink to={`/merchants/${m.id}/webhooks`}>{t('merchant.tabWebhooks')}</NavLink>
            <NavLink to={`/payments?merchant_id=${encodeURIComponent(m.id)}`}>{t('merchant.tabPayments')}</NavLink>
          </nav>
          <Routes>
            <Route index element={<SettingsTab merchant={m} reload={merchant.reload} />} />
            <Route path="mids" element={<Mids merchantId={m.id} />} />
            <Route path="routing" element={<Routing merchantId={m.id} />} />
            <Route path="wallets" element={<Wallets merchantId={m.id} />} />
            <Route path="webhooks" element={<MerchantWebhooks merchantId={m.id} name={m.name} url={m.notification_url} />} />
          </Routes>
        </>
      )}
    </Show>
  );
}
