import { useState } from 'react';
import { call, type Answer } from '../api/client';
import { bodyEnumOf } from '../queryParams';
import { useCan } from '../session';
import { ConfirmButton, Empty, ErrorNote, Field, Show, ShownOnce, Table, Time, useLoad, useSubmit } from '../ui';

type User = Answer<'/admin/v1/users', 'get'>['users'][number];
type Role = User['role'];
const ROLES = bodyEnumOf('POST /admin/v1/users', 'role') as Role[];

function NewUser({ done }: { done: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('support');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await call('post', '/admin/v1/users', { body: { email, role, ...(name ? { name } : {}), ...(password ? { password } : {}) } });
    setEmail(''); setName(''); setPassword('');
    done();
  });
  return (
    <form className="card" aria-labelledby="new-user" onSubmit={(e) => void submit(e)}>
      <h2 id="new-user">New user</h2>
      <div className="grid">
        <Field label="E-mail">{(id) => <input id={id} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
        <Field label="Name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field label="Role">{(id) => <select id={id} value={role} onChange={(e) => setRole(e.target.value as Role)}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select>}</Field>
        <Field label="Console password" hint="12 characters or more; empty: API tokens only.">{(id) => <input id={id} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />}</Field>
      </div>
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>Create user</button></div>
    </form>
  );
}

function Tokens({ user }: { user: User }) {
  const tokens = useLoad(() => call('get', '/admin/v1/users/{id}/tokens', { params: { id: user.id } }), user.id);
  const [created, setCreated] = useState<string>();
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const { error, submit } = useSubmit(async () => {
    // The date picker's day, to its end in the operator's time zone.
    const body = { ...(name ? { name } : {}), ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}) };
    const t = await call('post', '/admin/v1/users/{id}/tokens', { params: { id: user.id }, body });
    setCreated(t.token);
    setName('');
    setExpires('');
    tokens.reload();
  });
  return (
    <div className="tokens">
      {created && <ShownOnce label="New token" value={created} />}
      <Show loaded={tokens} what="tokens">
        {(d) => d.tokens.length === 0 ? <Empty>No token.</Empty> : (
          <ul>{d.tokens.map((t) => (
            <li key={t.id}>
              <code>{t.prefix}…</code> {t.name} · last used <Time iso={t.last_used_at as string | null} />
              {' '}· {t.expires_at ? <>{new Date(t.expires_at) <= new Date() ? 'expired' : 'expires'} <Time iso={t.expires_at} /></> : 'never expires'}{' '}
              {t.revoked_at ? <>· revoked <Time iso={t.revoked_at} /></> : (
                <ConfirmButton label="Revoke" danger title={`Revoke token ${t.name}?`} action={async () => { await call('post', '/admin/v1/users/{id}/tokens/{token_id}/revoke', { params: { id: user.id, token_id: t.id } }); tokens.reload(); }} />
              )}
            </li>))}
          </ul>
        )}
      </Show>
      <form className="inline" onSubmit={(e) => void submit(e)} aria-label={`New token for ${user.email}`}>
        <Field label="Token name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} placeholder="api" />}</Field>
        <Field label="Expires (optional)">{(id) => <input id={id} type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />}</Field>
        <button type="submit">New token</button>
      </form>
      {error && <ErrorNote error={error} />}
    </div>
  );
}

export function Users() {
  const can = useCan();
  const users = useLoad(() => call('get', '/admin/v1/users'), 'users');
  const [open, setOpen] = useState<string>();
  if (!can('users.manage')) return <ErrorNote error={new Error('Only admins manage users.')} />;
  return (
    <>
      <h1>Users and tokens</h1>
      <NewUser done={users.reload} />
      <Show loaded={users} what="users">
        {(d) => (
          <Table label="Operator users">
            <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Password</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
            <tbody>{d.users.map((u) => (
              <UserRow key={u.id} user={u} open={open === u.id} toggle={() => setOpen(open === u.id ? undefined : u.id)} done={users.reload} />
            ))}</tbody>
          </Table>
        )}
      </Show>
    </>
  );
}

/** Gives a user a console password (or a new one); the API checks its length. */
function SetPassword({ user, done }: { user: User; done: () => void }) {
  const [password, setPassword] = useState('');
  return (
    <ConfirmButton label={user.has_password ? 'New password…' : 'Set password…'} confirmLabel="Save password" title={`Console password of ${user.email}`}
      action={async () => { await call('patch', '/admin/v1/users/{id}', { params: { id: user.id }, body: { password } }); setPassword(''); done(); }}>
      <p>The user signs in to the console with it; their open sessions end.</p>
      <Field label="New password" hint="12 characters or more.">{(id) => <input id={id} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />}</Field>
    </ConfirmButton>
  );
}

function UserRow({ user, open, toggle, done }: { user: User; open: boolean; toggle: () => void; done: () => void }) {
  const [error, setError] = useState<Error>();
  const patch = (body: { role?: Role; disabled?: boolean }) => call('patch', '/admin/v1/users/{id}', { params: { id: user.id }, body }).then(done, setError);
  return (
    <>
      <tr>
        <td>{user.email}</td><td>{user.name}</td>
        <td><select aria-label={`Role of ${user.email}`} value={user.role} onChange={(e) => void patch({ role: e.target.value as Role })}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select></td>
        <td>{user.has_password ? 'set' : '—'}</td>
        <td>{user.disabled ? 'disabled' : 'enabled'}</td>
        <td><Time iso={user.created_at} /></td>
        <td className="row-actions">
          <button type="button" aria-expanded={open} onClick={toggle}>Tokens</button>
          <SetPassword user={user} done={done} />
          <ConfirmButton label={user.disabled ? 'Enable' : 'Disable'} danger={!user.disabled} title={`${user.disabled ? 'Enable' : 'Disable'} ${user.email}?`} action={() => patch({ disabled: !user.disabled })} />
          {error && <ErrorNote error={error} />}
        </td>
      </tr>
      {open && <tr><td colSpan={7}><Tokens user={user} /></td></tr>}
    </>
  );
}
