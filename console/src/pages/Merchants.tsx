import { useState } from 'react';
import { useModeQuery } from '../mode';
import { Link, useSearchParams } from 'react-router';
import { call, type Answer } from '../api/client';
import { useCan } from '../session';
import { Empty, ErrorNote, Field, Show, ShownOnce, Table, Time, useLoad, useSubmit } from '../ui';
import { useT } from '../i18n';
import { useUnsavedForm } from '../comfort';

type Created = Answer<'/admin/v1/merchants', 'post'>;

function CreateMerchant({ done }: { done: () => void }) {
  const t = useT();
  const createdText = t('merchants.created').split('{name}'); // the link goes where the name is
  const [name, setName] = useState('');
  const [notificationUrl, setNotificationUrl] = useState('');
  const [sandbox, setSandbox] = useState(true);
  const [hash, setHash] = useState<'md5' | 'sha256'>('md5');
  const [created, setCreated] = useState<Created>();
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    const merchant = await call('post', '/admin/v1/merchants', {
      body: { name, sandbox, hash_algorithm: hash, ...(notificationUrl ? { notification_url: notificationUrl } : {}) },
    });
    setCreated(merchant);
    setName('');
    setNotificationUrl('');
    done();
    unsaved.saved();
  });
  return (
    <section aria-labelledby="new-merchant" className="card">
      <h2 id="new-merchant">{t('merchants.new')}</h2>
      {created && (
        <div className="created">
          <p>{createdText[0]}<Link to={`/merchants/${created.id}`}>{created.name}</Link>{createdText[1]} <code data-testid="merchant-key">{created.merchant_key}</code></p>
          <ShownOnce label={t('merchants.password')} value={created.password} />
        </div>
      )}
      <form {...unsaved.form} onSubmit={(e) => void submit(e)} className="grid">
        <Field label={t('common.name')}>{(id) => <input id={id} required value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field label={t('merchants.notificationUrl')} hint={t('merchants.notificationHint')}>{(id) => <input id={id} type="url" value={notificationUrl} onChange={(e) => setNotificationUrl(e.target.value)} />}</Field>
        <Field label={t('merchants.hashAlgorithm')}>{(id) => (
          <select id={id} value={hash} onChange={(e) => setHash(e.target.value as 'md5' | 'sha256')}><option value="sha256">sha256</option><option value="md5">md5</option></select>)}
        </Field>
        <label className="check"><input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.target.checked)} /> {t('merchants.sandboxBox')}</label>
        {error && <ErrorNote error={error} />}
        <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('merchants.create')}</button></div>
      </form>
    </section>
  );
}

export function Merchants() {
  const t = useT();
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const disabled = params.get('disabled') ?? '';
  const modeQuery = useModeQuery();
  const list = useLoad(() => call('get', '/admin/v1/merchants', { query: { search: search || undefined, disabled: (disabled || undefined) as 'true' | 'false' | undefined, ...modeQuery, limit: '100' } }), `${search}|${disabled}|${modeQuery.mode ?? ''}`);
  return (
    <>
      <h1>{t('nav.merchants')}</h1>
      <form className="filters" aria-label={t('merchants.find')} onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const next = new URLSearchParams();
        for (const k of ['search', 'disabled']) { const v = String(data.get(k) ?? ''); if (v) next.set(k, v); }
        setParams(next);
      }}>
        <Field label={t('merchants.search')}>{(id) => <input id={id} name="search" type="search" defaultValue={search} />}</Field>
        <Field label={t('common.state')}>{(id) => <select id={id} name="disabled" defaultValue={disabled}><option value="">{t('common.any')}</option><option value="false">{t('common.enabled')}</option><option value="true">{t('common.disabled')}</option></select>}</Field>
        <div className="actions"><button type="submit" className="primary">{t('payments.search')}</button></div>
      </form>
      {can('merchants.write') && <CreateMerchant done={list.reload} />}
      <Show loaded={list} what="merchants">
        {(d) => d.merchants.length === 0 ? <Empty>{t('merchants.none')}</Empty> : (
          <Table label={t('nav.merchants')}>
            <thead><tr><th scope="col">{t('common.name')}</th><th scope="col">{t('merchants.key')}</th><th scope="col">{t('merchants.mode')}</th><th scope="col">{t('merchants.hash')}</th><th scope="col">{t('common.state')}</th><th scope="col">{t('col.created')}</th></tr></thead>
            <tbody>{d.merchants.map((m) => (
              <tr key={m.id}>
                <td><Link to={`/merchants/${m.id}`}>{m.name}</Link></td>
                <td><code>{m.merchant_key}</code></td>
                <td>{m.sandbox ? t('merchants.sandbox') : t('merchants.live')}</td>
                <td>{m.hash_algorithm}</td>
                <td>{m.disabled ? <span className="badge badge-decline">{t('merchants.disabledState')}</span> : t('merchants.enabledState')}</td>
                <td><Time iso={m.created_at} /></td>
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
    </>
  );
}
