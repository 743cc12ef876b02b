import { useState } from 'react';
import { call, type Answer } from '../api/client';
import { bodyEnumOf } from '../queryParams';
import { useCan } from '../session';
import { ErrorNote, Field, Show, useLoad, useSubmit } from '../ui';
import { useUnsavedForm } from '../comfort';
import { fill, useT } from '../i18n';

type Wallets = Answer<'/admin/v1/merchants/{id}/wallets', 'get'>;
const ROUTE = 'PUT /admin/v1/merchants/{id}/wallets';

/** A PEM key or certificate, pasted or read from a file; never shown again once stored (only its fingerprint). */
export function PemInput({ label, value, onChange, stored, path }: { label: string; value: string; onChange: (v: string) => void; stored?: string | null; path?: string }) {
  const t = useT();
  return (
    <Field label={label} hint={stored ? fill(t('merchant.pemStored'), { stored }) : t('merchant.pemPaste')} path={path}>
      {(id, aria) => (
        <>
          <textarea id={id} {...aria} rows={3} spellCheck={false} autoComplete="off" value={value} placeholder="-----BEGIN ...-----" onChange={(e) => onChange(e.target.value)} />
          <input type="file" aria-label={fill(t('merchant.fromFile'), { label })} accept=".pem,.key,.crt,.cer,text/plain" onChange={(e) => void e.target.files?.[0]?.text().then(onChange)} />
        </>
      )}
    </Field>
  );
}

function Choices({ legend, field, value, onChange }: { legend: string; field: string; value: string[]; onChange: (v: string[]) => void }) {
  return (
    <fieldset className="switch-group">
      <legend>{legend}</legend>
      <div className="chips">
        {bodyEnumOf(ROUTE, field).map((o) => (
          <label key={o} className="check"><input type="checkbox" checked={value.includes(o)} onChange={(e) => onChange(e.target.checked ? [...value, o] : value.filter((x) => x !== o))} /> {o}</label>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * Apple's domain-association file, read from the file Apple gives (sent as its text; the gateway serves it as-is at
 * /.well-known/apple-developer-merchantid-domain-association). Shown afterwards by its digest, size and upload time.
 */
function DomainAssociationInput({ value, onChange, stored }: { value: { name: string; text: string } | null; onChange: (v: { name: string; text: string } | null) => void; stored: NonNullable<Wallets['apple_pay']>['domain_association'] | null }) {
  const t = useT();
  const storedText = stored ? fill(t('merchant.assocStored'), { size: stored.size, sha256: stored.sha256, at: stored.uploaded_at }) : t('merchant.assocNone');
  return (
    <Field label={t('merchant.assocFile')} hint={value ? fill(t('merchant.assocChosen'), { name: value.name, n: value.text.length }) : fill(t('merchant.assocChoose'), { stored: storedText })} path="apple_pay.domain_association">
      {(id, aria) => <input id={id} {...aria} type="file" onChange={(e) => { const f = e.target.files?.[0]; if (f) void f.text().then((text) => onChange({ name: f.name, text })); else onChange(null); }} />}
    </Field>
  );
}

/** Whether the wallet is set up and offered, in words (issue 31 item 8: nothing configured is not "Enabled"). */
function WalletState({ name, current }: { name: string; current: { enabled: boolean } | null | undefined }) {
  const t = useT();
  const text = fill(!current ? t('merchant.walletNotSetUp') : current.enabled ? t('merchant.walletEnabled') : t('merchant.walletOff'), { name });
  return <p className={current?.enabled ? 'sub' : 'warn'} role="status" data-testid="wallet-state">{text}</p>;
}

function ApplePay({ merchantId, current, done }: { merchantId: string; current: Wallets['apple_pay']; done: () => void }) {
  // Nothing stored: the box starts unticked (ticking it is part of setting the wallet up).
  const [enabled, setEnabled] = useState(current?.enabled ?? false);
  const [identifier, setIdentifier] = useState(current?.merchant_identifier ?? '');
  const [country, setCountry] = useState(current?.country ?? '');
  const [shop, setShop] = useState(current?.shop_name ?? '');
  const [caps, setCaps] = useState<string[]>(current?.merchant_capabilities ?? ['supports3DS']);
  const [networks, setNetworks] = useState<string[]>(current?.supported_networks ?? ['visa', 'masterCard']);
  const [domains, setDomains] = useState(current?.domains.join(', ') ?? '');
  const [certificate, setCertificate] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [processingKey, setProcessingKey] = useState('');
  const [association, setAssociation] = useState<{ name: string; text: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const t = useT();
  const can = useCan();
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    await call('put', '/admin/v1/merchants/{id}/wallets', { params: { id: merchantId }, body: { apple_pay: {
      enabled, merchant_identifier: identifier, country: country.toUpperCase(), shop_name: shop,
      merchant_capabilities: caps as never, supported_networks: networks as never,
      domains: domains.split(/[\s,]+/).filter(Boolean),
      ...(certificate ? { certificate } : {}), ...(privateKey ? { private_key: privateKey } : {}), ...(processingKey ? { processing_private_key: processingKey } : {}),
      ...(association ? { domain_association: association.text } : {}),
    } }, conditional: true });
    setCertificate(''); setPrivateKey(''); setProcessingKey(''); setAssociation(null); setSaved(true);
    done();
    unsaved.saved();
  });
  return (
    <form {...unsaved.form} className="card" aria-labelledby="apple" onSubmit={(e) => void submit(e)}>
      <h2 id="apple">Apple Pay</h2>
      <WalletState name="Apple Pay" current={current} />
      <fieldset disabled={!can('merchants.write')}>
        <div className="grid">
          <label className="check"><input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> {t('common.enabled')}</label>
          <Field label={t('merchant.merchantIdentifier')}>{(id) => <input id={id} required value={identifier} onChange={(e) => setIdentifier(e.target.value)} />}</Field>
          <Field label={t('merchant.country')}>{(id) => <input id={id} required maxLength={2} value={country} onChange={(e) => setCountry(e.target.value)} />}</Field>
          <Field label={t('merchant.shopName')}>{(id) => <input id={id} required value={shop} onChange={(e) => setShop(e.target.value)} />}</Field>
          <Field label={t('merchant.domains')} hint={t('merchant.commaSeparated')}>{(id) => <input id={id} value={domains} onChange={(e) => setDomains(e.target.value)} />}</Field>
        </div>
        <Choices legend={t('merchant.capabilities')} field="apple_pay.merchant_capabilities" value={caps} onChange={setCaps} />
        <Choices legend={t('merchant.networks')} field="apple_pay.supported_networks" value={networks} onChange={setNetworks} />
        <PemInput label={t('merchant.identityCert')} value={certificate} onChange={setCertificate} stored={current?.certificate ? fill(t('merchant.certStored'), { subject: current.certificate.subject, to: current.certificate.valid_to, fingerprint: current.certificate.fingerprint }) : null} />
        <PemInput label={t('merchant.certKey')} value={privateKey} onChange={setPrivateKey} stored={current?.private_key?.fingerprint} />
        <PemInput label={t('merchant.processingKey')} value={processingKey} onChange={setProcessingKey} stored={current?.processing_private_key?.fingerprint} />
        <DomainAssociationInput value={association} onChange={setAssociation} stored={current?.domain_association ?? null} />
      </fieldset>
      {error && <ErrorNote error={error} />}
      {can('merchants.write') && <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('merchant.saveApple')}</button>{saved && <span role="status">{t('merchant.saved')}</span>}</div>}
    </form>
  );
}

function GooglePay({ merchantId, current, done }: { merchantId: string; current: Wallets['google_pay']; done: () => void }) {
  const [enabled, setEnabled] = useState(current?.enabled ?? false);
  const [environment, setEnvironment] = useState(current?.environment ?? 'TEST');
  const [auth, setAuth] = useState<string[]>(current?.allowed_auth_methods ?? ['PAN_ONLY', 'CRYPTOGRAM_3DS']);
  const [networks, setNetworks] = useState<string[]>(current?.supported_networks ?? ['VISA', 'MASTERCARD']);
  const [identifier, setIdentifier] = useState(current?.merchant_identifier ?? '');
  const [gateway, setGateway] = useState(current?.gateway ?? 'portcullis');
  const [gatewayMerchantId, setGatewayMerchantId] = useState(current?.gateway_merchant_id ?? '');
  const [extra, setExtra] = useState(current?.extra_parameters ?? false);
  const [privateKey, setPrivateKey] = useState('');
  const [saved, setSaved] = useState(false);
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    await call('put', '/admin/v1/merchants/{id}/wallets', { params: { id: merchantId }, body: { google_pay: {
      enabled, environment: environment as 'TEST' | 'PRODUCTION', allowed_auth_methods: auth as never, supported_networks: networks as never,
      merchant_identifier: identifier, gateway, gateway_merchant_id: gatewayMerchantId, extra_parameters: extra,
      ...(privateKey ? { private_key: privateKey } : {}),
    } }, conditional: true });
    setPrivateKey(''); setSaved(true);
    done();
    unsaved.saved();
  });
  const t = useT();
  const can = useCan();
  return (
    <form {...unsaved.form} className="card" aria-labelledby="google" onSubmit={(e) => void submit(e)}>
      <h2 id="google">Google Pay</h2>
      <WalletState name="Google Pay" current={current} />
      <fieldset disabled={!can('merchants.write')}>
        <div className="grid">
          <label className="check"><input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> {t('common.enabled')}</label>
          <Field label={t('merchant.environment')}>{(id) => <select id={id} value={environment} onChange={(e) => setEnvironment(e.target.value)}>{bodyEnumOf(ROUTE, 'google_pay.environment').map((o) => <option key={o}>{o}</option>)}</select>}</Field>
          <Field label={t('merchant.merchantIdentifier')}>{(id) => <input id={id} required value={identifier} onChange={(e) => setIdentifier(e.target.value)} />}</Field>
          <Field label={t('merchant.gateway')}>{(id) => <input id={id} required value={gateway} onChange={(e) => setGateway(e.target.value)} />}</Field>
          <Field label={t('merchant.gatewayMerchantId')}>{(id) => <input id={id} required value={gatewayMerchantId} onChange={(e) => setGatewayMerchantId(e.target.value)} />}</Field>
          <label className="check"><input type="checkbox" checked={extra} onChange={(e) => setExtra(e.target.checked)} /> {t('merchant.extraParams')}</label>
        </div>
        <Choices legend={t('merchant.authMethods')} field="google_pay.allowed_auth_methods" value={auth} onChange={setAuth} />
        <Choices legend={t('merchant.networks')} field="google_pay.supported_networks" value={networks} onChange={setNetworks} />
        <PemInput label={t('merchant.privateKey')} value={privateKey} onChange={setPrivateKey} stored={current?.private_key?.fingerprint} />
      </fieldset>
      {error && <ErrorNote error={error} />}
      {can('merchants.write') && <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('merchant.saveGoogle')}</button>{saved && <span role="status">{t('merchant.saved')}</span>}</div>}
    </form>
  );
}

export function Wallets({ merchantId }: { merchantId: string }) {
  const wallets = useLoad(() => call('get', '/admin/v1/merchants/{id}/wallets', { params: { id: merchantId } }), merchantId);
  return (
    <Show loaded={wallets} what="wallet settings">
      {(w) => (
        <>
          <ApplePay merchantId={merchantId} current={w.apple_pay} done={wallets.reload} />
          <GooglePay merchantId={merchantId} current={w.google_pay} done={wallets.reload} />
        </>
      )}
    </Show>
  );
}
