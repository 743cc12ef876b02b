/**
 * The invitation's page (/portal/invitation#token=…, the link the e-mail carries): the invitee chooses a password.
 * The token stays in the URL's fragment (never sent to a server by the browser) and goes only in the API's body.
 */
import { useState } from 'react';
import { call } from '../api';
import { ErrorNote, Field, useSubmit } from '../../../console/src/ui';
import { useT } from '../i18n';
import { LanguagePicker } from '../language-picker';

const tokenOf = (hash: string) => new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';

export function Invitation() {
  const t = useT();
  const [token] = useState(() => tokenOf(window.location.hash));
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [done, setDone] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    if (password !== again) throw new Error(t('invitation.differ'));
    setDone((await call('post', '/portal/v1/invitation', { body: { token, password } })).email);
    window.history.replaceState(null, '', window.location.pathname);
  });
  return (
    <main id="main" className="sign-in">
      <p><LanguagePicker /></p>
      <h1>{t('invitation.title')}</h1>
      {done ? (
        <>
          <p role="status">{t('invitation.done', { email: done })}</p>
          <p><a href="/portal/">{t('invitation.goSignIn')}</a></p>
        </>
      ) : !token ? (
        <p className="error" role="alert">{t('invitation.noToken')}</p>
      ) : (
        <form onSubmit={(e) => void submit(e)} aria-label={t('invitation.title')}>
          <Field label={t('invitation.password')} hint={t('invitation.passwordHint')}>{(id) => <input id={id} type="password" autoComplete="new-password" minLength={12} required value={password} onChange={(e) => setPassword(e.target.value)} />}</Field>
          <Field label={t('invitation.again')}>{(id) => <input id={id} type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />}</Field>
          {error && <ErrorNote error={error} />}
          <button type="submit" className="primary" disabled={busy}>{busy ? t('common.saving') : t('invitation.submit')}</button>
        </form>
      )}
    </main>
  );
}
