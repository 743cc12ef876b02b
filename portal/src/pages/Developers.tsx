/**
 * Developers: the merchant key, sandbox or live (plainly), the notification URL, the webhook signing secret (shown
 * on request, audited; rotated with a day's overlap), the callback and status fields and return parameters (changed
 * when the payment provider allows it), "send a test callback" (its delivery shown), and the callback log with each delivery and a resend.
 */
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { call, type Callback } from '../api';
import type { Answer } from '../../../console/src/api/client';
import { formatLocal } from '../../../console/src/format';
import { useCan, useSession } from '../session';
import { useI18n, useT } from '../i18n';
import { codeName, codeWords } from '../codes';
import { ConfirmButton, Empty, ErrorNote, Field, ShownOnce, Show, StatusBadge, Table, Time, useLoad, useSubmit } from '../../../console/src/ui';

function SigningSecret({ merchantId }: { merchantId: string }) {
  const { t, locale } = useI18n();
  const [secret, setSecret] = useState<{ label: string; value: string }>();
  const reveal = useSubmit(async () => setSecret({ label: t('secret.label'), value: (await call('post', '/portal/v1/developers/signing-secret/reveal', { body: { merchant_id: merchantId } })).signing_secret }));
  return (
    <section aria-labelledby="secret">
      <h2 id="secret">{t('secret.title')}</h2>
      <p>{t('secret.explain')}</p>
      <div className="actions">
        <button type="button" onClick={() => void reveal.submit()} disabled={reveal.busy}>{t('secret.show')}</button>
        <ConfirmButton label={t('secret.rotate')} confirmLabel={t('secret.rotateConfirm')} title={t('secret.rotateTitle')} danger action={async () => {
          const rotated = await call('post', '/portal/v1/developers/signing-secret', { body: { merchant_id: merchantId } });
          setSecret({ label: t('secret.newLabel', { until: rotated.previous_valid_until ? formatLocal(rotated.previous_valid_until, locale) : '—' }), value: rotated.signing_secret });
        }}>
          <p>{t('secret.rotateExplain')}</p>
        </ConfirmButton>
      </div>
      {reveal.error && <ErrorNote error={reveal.error} />}
      {secret && <ShownOnce label={secret.label} value={secret.value} />}
    </section>
  );
}

type Settings = Answer<'/portal/v1/developers', 'get'>;

/** The notification URL and the allowed source addresses (one per line), saved together. */
function SettingsForm({ d, done }: { d: Settings; done: () => void }) {
  const t = useT();
  const [url, setUrl] = useState(d.notification_url ?? '');
  const [sources, setSources] = useState(d.allowed_source_addresses.join('\n'));
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    const list = sources.split(/\s+/).map((x) => x.trim()).filter(Boolean);
    await call('patch', '/portal/v1/developers', { body: { merchant_id: d.merchant_id, notification_url: url.trim() || null, allowed_source_addresses: list } });
    setSaved(true);
    done();
  });
  return (
    <form className="filters" aria-label={t('settings.label')} onSubmit={(e) => void submit(e)}>
      <Field label={t('settings.url')}>{(id) => <input id={id} type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://shop.example/callbacks" />}</Field>
      <Field label={t('settings.sources')} hint={t('settings.sourcesHint')}>{(id) => <textarea id={id} rows={3} value={sources} onChange={(e) => setSources(e.target.value)} />}</Field>
      {error && <ErrorNote error={error} />}
      {saved && <p role="status">{t('settings.saved')}</p>}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('settings.save')}</button></div>
    </form>
  );
}

/**
 * Protocol Mapping's callback and status fields and the return parameters (issue 30 item 3): the values in force;
 * those the payment provider lets the merchant change are checkboxes saved together, the others read-only.
 */
function ProtocolMapping({ d, done }: { d: Settings; done: () => void }) {
  const t = useT();
  const can = useCan();
  const editable = new Set<string>(can('developers.secrets') ? d.editable_settings : []);
  const [lists, setLists] = useState({ callback_fields: new Set(d.callback_fields), status_fields: new Set(d.status_fields), return_params: new Set(d.return_params) });
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    const body: Record<string, string[]> = {};
    for (const key of ['callback_fields', 'status_fields', 'return_params'] as const) if (editable.has(key)) body[key] = [...lists[key]];
    await call('patch', '/portal/v1/developers', { body: { merchant_id: d.merchant_id, ...body } });
    setSaved(true);
    done();
  });
  const toggle = (key: keyof typeof lists, name: string) => {
    const next = new Set(lists[key]);
    if (next.has(name)) next.delete(name); else next.add(name);
    setLists({ ...lists, [key]: next });
    setSaved(false);
  };
  const box = (key: keyof typeof lists, name: string, label: string) => (
    <input type="checkbox" checked={lists[key].has(name)} disabled={!editable.has(key)} onChange={() => toggle(key, name)} aria-label={label} />
  );
  const locked = (key: string) => !editable.has(key) && <p className="sub" role="note">{t('mapping.readOnly')}</p>;
  return (
    <form aria-label={t('mapping.label')} onSubmit={(e) => void submit(e)}>
      <section aria-labelledby="mapping-fields">
        <h2 id="mapping-fields">{t('mapping.fieldsTitle')}</h2>
        <p>{t('mapping.fieldsExplain')}</p>
        {editable.has('callback_fields') === editable.has('status_fields') ? locked('callback_fields')
          : <p className="sub" role="note">{t(editable.has('callback_fields') ? 'mapping.onlyCallbacks' : 'mapping.onlyStatus')}</p>}
        <fieldset className="switch-group">
          <legend className="sr-only">{t('mapping.fieldsTitle')}</legend>
          <div className="switch-head" aria-hidden="true"><span>{t('mapping.field')}</span><span>{t('mapping.callback')}</span><span>{t('mapping.status')}</span></div>
          {d.choices.fields.map((f) => (
            <div key={f.name} className="switch-row">
              <span title={f.note}><code>{f.name}</code> {f.wire.join(',') !== f.name && <small>{f.wire.join(', ')}</small>}</span>
              <label className="switch">{box('callback_fields', f.name, t('mapping.inCallbacks', { field: f.name }))}</label>
              <label className="switch">{box('status_fields', f.name, t('mapping.inStatus', { field: f.name }))}</label>
            </div>
          ))}
        </fieldset>
      </section>
      <section aria-labelledby="mapping-return">
        <h2 id="mapping-return">{t('mapping.returnTitle')}</h2>
        <p>{t('mapping.returnExplain')}</p>
        {locked('return_params')}
        <fieldset>
          <legend className="sr-only">{t('mapping.returnTitle')}</legend>
          {d.choices.return_params.map((p) => <label key={p} className="check">{box('return_params', p, p)} <code>{p}</code></label>)}
        </fieldset>
      </section>
      {error && <ErrorNote error={error} />}
      {editable.size > 0 && (
        <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('mapping.save')}</button>{saved && <span role="status">{t('settings.saved')}</span>}</div>
      )}
    </form>
  );
}

/** A new hash password, shown once; the previous one keeps verifying requests for the grace period chosen. */
function PasswordRotation({ d, done }: { d: Settings; done: () => void }) {
  const { t, rich } = useI18n();
  const [grace, setGrace] = useState('24');
  const [shown, setShown] = useState<string>();
  return (
    <section aria-labelledby="password">
      <h2 id="password">{t('password.title')}</h2>
      {d.previous_password_valid_until && <p>{rich('password.previousUntil', { time: <Time iso={d.previous_password_valid_until} /> })}</p>}
      <ConfirmButton label={t('password.rotate')} confirmLabel={t('secret.rotateConfirm')} title={t('password.rotateTitle')} danger action={async () => {
        setShown((await call('post', '/portal/v1/developers/password', { body: { merchant_id: d.merchant_id, grace_hours: Number(grace) } })).password);
        done();
      }}>
        <Field label={t('password.grace')}>{(id) => <input id={id} type="number" min={0} max={720} value={grace} onChange={(e) => setGrace(e.target.value)} />}</Field>
      </ConfirmButton>
      {shown && <ShownOnce label={t('password.new')} value={shown} />}
    </section>
  );
}

/** "Send a test callback": queued signed as every callback, then read every second until its first delivery attempt. */
function TestSend({ merchantId, sent }: { merchantId: string; sent: () => void }) {
  const { t, number } = useI18n();
  const [id, setId] = useState<string>();
  const [state, setState] = useState<Callback>();
  const [error, setError] = useState<Error>();
  useEffect(() => {
    if (!id) return;
    let live = true;
    let tries = 0;
    const look = async () => {
      const found = await call('get', '/portal/v1/callbacks/{id}', { params: { id } });
      if (!live) return;
      setState(found);
      if (found.attempt_log.length === 0 && ++tries < 30) setTimeout(() => void look().catch((e: Error) => live && setError(e)), 1000);
      else sent();
    };
    void look().catch((e: Error) => live && setError(e));
    return () => { live = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id]);
  const last = state?.attempt_log[state.attempt_log.length - 1];
  return (
    <div className="actions">
      <button type="button" onClick={() => {
        setId(undefined);
        setState(undefined);
        setError(undefined);
        call('post', '/portal/v1/developers/test-callback', { body: { merchant_id: merchantId } }).then((r) => setId(r.id), (e: Error) => setError(e));
      }}>{t('test.send')}</button>
      {error && <ErrorNote error={error} />}
      <p role="status" className={id ? 'notice' : 'sr-only'}>
        {id && (!last ? t('test.queued')
          : last.outcome === 'delivered' ? t('test.delivered', { status: last.http_status ?? '?', ms: number(last.duration_ms) })
          : `${t('test.notDelivered', { error: `${last.error ?? codeWords(t, last.outcome)}${last.http_status ? ` (HTTP ${last.http_status})` : ''}` })} ${state?.state_text ?? ''}`)}
      </p>
    </div>
  );
}

function CallbackLog({ merchantId }: { merchantId: string }) {
  const t = useT();
  const can = useCan();
  const log = useLoad(() => call('get', '/portal/v1/callbacks', { query: { merchant_id: merchantId } }), merchantId);
  return (
    <section aria-labelledby="callback-log">
      <h2 id="callback-log">{t('log.title')}</h2>
      {can('callbacks.resend') && <TestSend merchantId={merchantId} sent={log.reload} />}
      <p><a className="button" href={`/portal/v1/callbacks/export?merchant_id=${encodeURIComponent(merchantId)}`} download>{t('log.download')}</a></p>
      <Show loaded={log} what={t('log.what')}>{({ callbacks }) => callbacks.length === 0 ? <Empty>{t('log.none')}</Empty> : (
        <Table label={t('payment.callbacks')}>
          <thead><tr><th scope="col">{t('col.created')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('dispute.payment')}</th><th scope="col">{t('col.attempts')}</th><th scope="col">{t('col.lastAnswer')}</th><th scope="col">{t('col.action')}</th></tr></thead>
          <tbody>{callbacks.map((c) => {
            const last = c.attempt_log[c.attempt_log.length - 1];
            return (
              <tr key={c.id}>
                <td><Time iso={c.created_at} /></td><td><StatusBadge status={c.status} label={codeName(t, c.status)} /></td>
                <td>{c.payment_id ? <Link to={`/payments/${c.payment_id}`}>{c.payment_id.slice(0, 8)}</Link> : '—'}</td>
                <td>{c.attempts}</td>
                <td>{last ? `${last.http_status ?? '—'} ${codeWords(t, last.outcome)}${last.error ? `: ${last.error}` : ''}` : '—'}</td>
                <td>{can('callbacks.resend') ? (
                  <ConfirmButton label={t('log.resend')} title={t('log.resendTitle')} action={async () => { await call('post', '/portal/v1/callbacks/{id}/resend', { params: { id: c.id }, body: {} }); log.reload(); }}>
                    <p>{t('log.resendExplain', { url: c.url })}</p>
                  </ConfirmButton>
                ) : '—'}</td>
              </tr>
            );
          })}</tbody>
        </Table>
      )}</Show>
    </section>
  );
}

export function Developers() {
  const t = useT();
  const { session } = useSession();
  const can = useCan();
  const [merchantId, setMerchantId] = useState(session.merchants[0]?.id ?? '');
  const settings = useLoad(() => call('get', '/portal/v1/developers', { query: { merchant_id: merchantId } }), merchantId);
  return (
    <>
      <h1>{t('nav.developers')}</h1>
      {session.merchants.length > 1 && (
        <Field label={t('common.shop')}>{(id) => (
          <select id={id} value={merchantId} onChange={(e) => setMerchantId(e.target.value)}>{session.merchants.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}</select>
        )}</Field>
      )}
      <Show loaded={settings} what={t('developers.what')}>{(d) => (
        <section aria-labelledby="keys">
          <h2 id="keys">{d.name}</h2>
          <p className={d.sandbox ? 'warn' : undefined} role="note"><strong>{d.sandbox ? t('shell.sandbox') : t('shell.live')}</strong>: {d.sandbox ? t('developers.sandbox') : t('developers.live')}</p>
          <dl className="facts">
            <div><dt>{t('developers.key')}</dt><dd><code>{d.merchant_key}</code></dd></div>
            <div><dt>{t('settings.url')}</dt><dd>{d.notification_url ?? t('developers.noUrl')}</dd></div>
          </dl>
          {can('developers.secrets') && <SettingsForm key={d.merchant_id} d={d} done={settings.reload} />}
          {can('developers.secrets') && <PasswordRotation d={d} done={settings.reload} />}
          <ProtocolMapping key={`mapping-${d.merchant_id}`} d={d} done={settings.reload} />
        </section>
      )}</Show>
      {can('developers.secrets') && <SigningSecret merchantId={merchantId} />}
      {can('callbacks.read') && <CallbackLog merchantId={merchantId} />}
    </>
  );
}
