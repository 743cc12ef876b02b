/**
 * A merchant's webhooks (issue 31 item 7): where its callbacks go, a test send followed until it is delivered or
 * fails, its signing secret shown on request (audited) and rotated, and its latest callbacks with their states.
 */
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { call, type Answer } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton, Empty, ErrorNote, Show, ShownOnce, StatusBadge, Table, Time, useLoad } from '../ui';
import { fill, useT } from '../i18n';

type Listed = Answer<'/admin/v1/callbacks', 'get'>['callbacks'][number];

/** A test send, then its state read every second until the dispatcher delivered it or gave up on an attempt. */
function TestSend({ merchantId, url, sent }: { merchantId: string; url: string | null; sent: () => void }) {
  const t = useT();
  const [id, setId] = useState<string>();
  const [state, setState] = useState<Listed>();
  const [error, setError] = useState<Error>();
  useEffect(() => {
    if (!id) return;
    let live = true;
    let tries = 0;
    const look = async () => {
      const { callbacks } = await call('get', '/admin/v1/callbacks', { query: { merchant_id: merchantId, limit: '20' } });
      const found = callbacks.find((c) => c.id === id);
      if (!live) return;
      if (found) setState(found);
      if ((found?.attempt_log.length ?? 0) === 0 && ++tries < 20) setTimeout(() => void look(), 1000);
      else sent();
    };
    void look().catch((e: Error) => live && setError(e));
    return () => { live = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id]);
  const last = state?.attempt_log[state.attempt_log.length - 1];
  return (
    <div>
      <button type="button" disabled={!url} onClick={() => {
        setState(undefined);
        setError(undefined);
        call('post', '/admin/v1/merchants/{id}/callbacks/test', { params: { id: merchantId } }).then((r) => setId(r.id), (e: Error) => setError(e));
      }}>{t('merchant.sendTest')}</button>
      {!url && <p className="sub">{t('merchant.setUrlFirst')}</p>}
      {error && <ErrorNote error={error} />}
      <p role="status" className={id ? 'notice' : 'sr-only'}>
        {id && (!last ? t('merchant.testQueued')
          : last.outcome === 'delivered' ? fill(t('merchant.testDelivered'), { status: last.http_status ?? '?', ms: last.duration_ms })
          : fill(t('merchant.testNotDelivered'), { error: `${last.error ?? last.outcome}${last.http_status ? ` (HTTP ${last.http_status})` : ''}`, state: state?.state_text ?? '' }))}
      </p>
    </div>
  );
}

/** The signing secret: shown on request (every reveal is audited), hidden again; rotation shows the new one once. */
function SigningSecret({ merchantId, name }: { merchantId: string; name: string }) {
  const t = useT();
  const [shown, setShown] = useState<string>();
  const [rotated, setRotated] = useState<Answer<'/admin/v1/merchants/{id}/signing-secret', 'post'>>();
  const [error, setError] = useState<Error>();
  return (
    <section aria-labelledby="secret" className="card">
      <h2 id="secret">{t('merchant.secret')}</h2>
      <p className="sub">{t('merchant.secretExplain')}</p>
      {shown
        ? <div className="shown-once" role="group" aria-label={t('merchant.currentSecret')}><code data-testid="signing-secret">{shown}</code><button type="button" onClick={() => setShown(undefined)}>{t('merchant.hide')}</button></div>
        : <button type="button" onClick={() => { setError(undefined); call('post', '/admin/v1/merchants/{id}/signing-secret/reveal', { params: { id: merchantId } }).then((r) => setShown(r.signing_secret), (e: Error) => setError(e)); }}>{t('merchant.reveal')}</button>}
      {error && <ErrorNote error={error} />}
      {rotated && <><ShownOnce label={t('merchant.newSecret')} value={rotated.signing_secret} /><p>{t('merchant.previousUntil')} <Time iso={rotated.previous_valid_until} />.</p></>}
      <div className="actions">
        <ConfirmButton label={t('merchant.rotateSecret')} confirmLabel={t('merchant.rotate')} danger title={fill(t('merchant.rotateSecretTitle'), { name })}
          action={async () => { setShown(undefined); setRotated(await call('post', '/admin/v1/merchants/{id}/signing-secret', { params: { id: merchantId } })); }}>
          <p>{t('merchant.rotateSecretExplain')}</p>
        </ConfirmButton>
      </div>
    </section>
  );
}

export function MerchantWebhooks({ merchantId, name, url }: { merchantId: string; name: string; url: string | null }) {
  const t = useT();
  const can = useCan();
  const latest = useLoad(() => call('get', '/admin/v1/callbacks', { query: { merchant_id: merchantId, limit: '10' } }), merchantId);
  return (
    <>
      <section aria-labelledby="target" className="card">
        <h2 id="target">{t('merchants.notificationUrl')}</h2>
        <p>{url ? <code>{url}</code> : t('merchant.noUrl')}</p>
        {can('callbacks.resend') && <TestSend merchantId={merchantId} url={url} sent={latest.reload} />}
      </section>
      {can('merchants.write') && <SigningSecret merchantId={merchantId} name={name} />}
      <section aria-labelledby="latest" className="card">
        <h2 id="latest">{t('merchant.latest')}</h2>
        <Show loaded={latest} what="callbacks">
          {(d) => d.callbacks.length === 0 ? <Empty>{t('merchant.noCallback')}</Empty> : (
            <Table label={t('merchant.latestTable')}>
              <thead><tr><th scope="col">{t('callbacks.colCreated')}</th><th scope="col">{t('callbacks.event')}</th><th scope="col">{t('callbacks.colState')}</th><th scope="col">{t('callbacks.colAttempts')}</th></tr></thead>
              <tbody>{d.callbacks.map((c) => (
                <tr key={c.id}><td><Time iso={c.created_at} /></td><td>{c.event_type}</td><td><StatusBadge status={c.status} /> {c.state_text}</td><td>{c.attempts}</td></tr>
              ))}</tbody>
            </Table>
          )}
        </Show>
        <p><Link to={`/callbacks?merchant_id=${encodeURIComponent(merchantId)}`}>{t('merchant.allCallbacks')}</Link></p>
      </section>
    </>
  );
}
