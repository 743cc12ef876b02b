/**
 * Two-factor sign-in (issue 30): set-up (scan the QR code, confirm with the app's code, keep the recovery codes),
 * the only screen of a session that must set it up first; and the "Sign-in security" page to turn it on or off.
 */
import { useState } from 'react';
import { call } from '../api';
import { ErrorNote, Field, Show, useLoad, useSubmit } from '../../../console/src/ui';
import { useT } from '../i18n';

function Enrol({ onDone, doneLabel }: { onDone: () => void; doneLabel: string }) {
  const t = useT();
  const [enrolment, setEnrolment] = useState<{ secret: string; qr_svg: string } | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useSubmit(async () => setEnrolment(await call('post', '/portal/v1/two-factor/enrolment', { body: {} })));
  const confirm = useSubmit(async () => setCodes((await call('post', '/portal/v1/two-factor/enrolment/confirm', { body: { code } })).recovery_codes));
  if (codes) {
    return (
      <>
        <p role="status">{t('twoFactor.codesIntro')}</p>
        <ul className="recovery-codes" aria-label={t('twoFactor.codes')}>{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
        <button type="button" className="primary" onClick={onDone}>{doneLabel}</button>
      </>
    );
  }
  if (enrolment) {
    return (
      <form onSubmit={(e) => void confirm.submit(e)} aria-label={t('twoFactor.confirm')}>
        <img alt={t('twoFactor.qr')} width={200} height={200} src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qr_svg)}`} />
        <p>{t('twoFactor.scan')} <code data-testid="totp-secret">{enrolment.secret}</code></p>
        <Field label={t('twoFactor.code')}>{(id) => <input id={id} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required value={code} onChange={(e) => setCode(e.target.value.trim())} />}</Field>
        {confirm.error && <ErrorNote error={confirm.error} />}
        <button type="submit" className="primary" disabled={confirm.busy}>{t('twoFactor.turnOn')}</button>
      </form>
    );
  }
  return (
    <form onSubmit={(e) => void start.submit(e)} aria-label={t('twoFactor.start')}>
      <p>{t('twoFactor.explain')}</p>
      {start.error && <ErrorNote error={start.error} />}
      <button type="submit" className="primary" disabled={start.busy}>{t('twoFactor.showQr')}</button>
    </form>
  );
}

export function TwoFactorSetUp({ onDone, onSignOut }: { mandatory: true; onDone: () => void; onSignOut: () => void }) {
  const t = useT();
  return (
    <main id="main" className="sign-in">
      <h1>{t('twoFactor.setUpTitle')}</h1>
      <p>{t('twoFactor.required')}</p>
      <Enrol onDone={onDone} doneLabel={t('twoFactor.continue')} />
      <p><button type="button" onClick={onSignOut}>{t('shell.signOut')}</button></p>
    </main>
  );
}

export function Security() {
  const t = useT();
  const status = useLoad(() => call('get', '/portal/v1/two-factor'), 'two-factor');
  const [code, setCode] = useState('');
  const off = useSubmit(async () => {
    await call('post', '/portal/v1/two-factor/disable', { body: { code } });
    setCode('');
    status.reload();
  });
  return (
    <>
      <h1>{t('nav.security')}</h1>
      <Show loaded={status} what={t('twoFactor.what')}>{(s) => s.enabled ? (
        <section aria-labelledby="tf-on">
          <h2 id="tf-on">{t('twoFactor.on')}</h2>
          <p>{t('twoFactor.codesLeft', { count: s.recovery_codes_left })}</p>
          {s.mandatory ? <p>{t('twoFactor.mandatory')}</p> : (
            <form onSubmit={(e) => void off.submit(e)} aria-label={t('twoFactor.switchOffLabel')} className="inline-form">
              <Field label={t('twoFactor.currentCode')}>{(id) => <input id={id} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required value={code} onChange={(e) => setCode(e.target.value.trim())} />}</Field>
              {off.error && <ErrorNote error={off.error} />}
              <button type="submit" className="danger" disabled={off.busy}>{t('twoFactor.switchOff')}</button>
            </form>
          )}
        </section>
      ) : (
        <section aria-labelledby="tf-off">
          <h2 id="tf-off">{t('twoFactor.off')}</h2>
          <Enrol onDone={status.reload} doneLabel={t('common.done')} />
        </section>
      )}</Show>
    </>
  );
}
