/**
 * Two-factor sign-in's set-up (issue 30): when the gateway makes it mandatory (REQUIRE_TWO_FACTOR) a session that
 * has not set it up sees only this: scan the QR code (or type the secret), confirm with the app's code, write the
 * recovery codes down. Also reachable when it is optional.
 */
import { useState } from 'react';
import { call } from '../api/client';
import { ErrorNote, Field, useSubmit } from '../ui';
import { useT } from '../i18n';

export function TwoFactorSetUp({ onDone, onSignOut }: { onDone: () => void; onSignOut: () => void }) {
  const t = useT();
  const [enrolment, setEnrolment] = useState<{ secret: string; qr_svg: string } | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useSubmit(async () => setEnrolment(await call('post', '/admin/v1/two-factor/enrolment')));
  const confirm = useSubmit(async () => setCodes((await call('post', '/admin/v1/two-factor/enrolment/confirm', { body: { code } })).recovery_codes));
  return (
    <main id="main" className="sign-in">
      <h1>{t('pay.tfa.title')}</h1>
      {codes ? (
        <>
          <p>{t('pay.tfa.on')}</p>
          <ul className="recovery-codes" aria-label={t('pay.tfa.recoveryCodes')}>{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
          <button type="button" className="primary" onClick={onDone}>{t('pay.tfa.continue')}</button>
        </>
      ) : enrolment ? (
        <form onSubmit={(e) => void confirm.submit(e)} aria-label={t('pay.tfa.confirmForm')}>
          <img alt={t('pay.tfa.qrAlt')} width={200} height={200} src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qr_svg)}`} />
          <p>{t('pay.tfa.scan')} <code>{enrolment.secret}</code></p>
          <Field label={t('pay.tfa.code')}>{(id) => <input id={id} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required value={code} onChange={(e) => setCode(e.target.value.trim())} />}</Field>
          {confirm.error && <ErrorNote error={confirm.error} />}
          <button type="submit" className="primary" disabled={confirm.busy}>{t('pay.tfa.turnOn')}</button>
        </form>
      ) : (
        <form onSubmit={(e) => void start.submit(e)} aria-label={t('pay.tfa.startForm')}>
          <p>{t('pay.tfa.required')}</p>
          {start.error && <ErrorNote error={start.error} />}
          <button type="submit" className="primary" disabled={start.busy}>{t('pay.tfa.showQr')}</button>
        </form>
      )}
      <p><button type="button" onClick={onSignOut}>{t('pay.tfa.signOut')}</button></p>
    </main>
  );
}
