import { useState } from 'react';
import { call, type Session } from '../api/client';
import { ErrorNote, Field, useSubmit } from '../ui';

export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(async () => onSignedIn(await call('post', '/admin/v1/session', { body: { email, password } })));
  return (
    <main id="main" className="sign-in">
      <h1>Portcullis console</h1>
      {notice && <p className="warn" role="status">{notice}</p>}
      <form onSubmit={(e) => void submit(e)} aria-label="Sign in">
        <Field label="E-mail">{(id) => <input id={id} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
        <Field label="Password">{(id) => <input id={id} type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />}</Field>
        {error && <ErrorNote error={error} />}
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      <p className="hint">Operators get a password from an admin (console or <code>npm run admin -- user create</code>).</p>
    </main>
  );
}
