/** Sign-in: e-mail and password, then (two-factor sign-in on) the authenticator app's code or a recovery code. */
import { useState } from 'react';
import { ApiError, call, type Session } from '../api';
import { ErrorNote, Field, useSubmit } from '../../../console/src/ui';
import { useT } from '../i18n';
import { LanguagePicker } from '../language-picker';

export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice?: string }) {
  const t = useT();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    const second = !needsCode || code === '' ? {} : /^[0-9]{6}$/.test(code) ? { code } : { recovery_code: code };
    try {
      onSignedIn(await call('post', '/portal/v1/session', { body: { email, password, ...second } }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401 && /authenticator app/.test(err.body?.error_message ?? '')) setNeedsCode(true);
      throw err;
    }
  });
  return (
    <main id="main" className="sign-in">
      <p><LanguagePicker /></p>
      <h1>{t('signIn.title')}</h1>
      {notice && <p className="warn" role="status">{notice}</p>}
      <form onSubmit={(e) => void submit(e)} aria-label={t('signIn.submit')}>
        <Field label={t('signIn.email')}>{(id) => <input id={id} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
        <Field label={t('signIn.password')}>{(id) => <input id={id} type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />}</Field>
        {needsCode && <Field label={t('signIn.code')}>{(id) => <input id={id} autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value.trim())} />}</Field>}
        {error && <ErrorNote error={error} />}
        <button type="submit" className="primary" disabled={busy}>{busy ? t('signIn.busy') : t('signIn.submit')}</button>
      </form>
      <p className="hint">{t('signIn.hint')}</p>
    </main>
  );
}
