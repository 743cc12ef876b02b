/**
 * Two-factor sign-in's set-up (issue 30): when the gateway makes it mandatory (REQUIRE_TWO_FACTOR) a session that
 * has not set it up sees only this: scan the QR code (or type the secret), confirm with the app's code, write the
 * recovery codes down. Also reachable when it is optional.
 */
import { useState } from 'react';
import { call } from '../api/client';
import { ErrorNote, Field, useSubmit } from '../ui';

export function TwoFactorSetUp({ onDone, onSignOut }: { onDone: () => void; onSignOut: () => void }) {
  const [enrolment, setEnrolment] = useState<{ secret: string; qr_svg: string } | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useSubmit(async () => setEnrolment(await call('post', '/admin/v1/two-factor/enrolment')));
  const confirm = useSubmit(async () => setCodes((await call('post', '/admin/v1/two-factor/enrolment/confirm', { body: { code } })).recovery_codes));
  return (
    <main id="main" className="sign-in">
      <h1>Set up two-factor sign-in</h1>
      {codes ? (
        <>
          <p>Two-factor sign-in is on. Keep these recovery codes somewhere safe: each signs you in once if your phone is lost. They are not shown again.</p>
          <ul className="recovery-codes" aria-label="Recovery codes">{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
          <button type="button" className="primary" onClick={onDone}>Continue to the console</button>
        </>
      ) : enrolment ? (
        <form onSubmit={(e) => void confirm.submit(e)} aria-label="Confirm two-factor sign-in">
          <img alt="QR code for your authenticator app" width={200} height={200} src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qr_svg)}`} />
          <p>Scan it with an authenticator app, or type this key: <code>{enrolment.secret}</code></p>
          <Field label="Code from the app">{(id) => <input id={id} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required value={code} onChange={(e) => setCode(e.target.value.trim())} />}</Field>
          {confirm.error && <ErrorNote error={confirm.error} />}
          <button type="submit" className="primary" disabled={confirm.busy}>Turn on</button>
        </form>
      ) : (
        <form onSubmit={(e) => void start.submit(e)} aria-label="Start two-factor set-up">
          <p>This gateway requires a code from an authenticator app at each sign-in. Set it up to continue.</p>
          {start.error && <ErrorNote error={start.error} />}
          <button type="submit" className="primary" disabled={start.busy}>Show the QR code</button>
        </form>
      )}
      <p><button type="button" onClick={onSignOut}>Sign out</button></p>
    </main>
  );
}
