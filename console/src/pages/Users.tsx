import { useId, useRef, useState } from 'react';
import { call, type Answer } from '../api/client';
import { bodyEnumOf } from '../queryParams';
import { useCan } from '../session';
import { ConfirmButton, Empty, ErrorNote, Field, Show, ShownOnce, Table, Time, useLoad, useSubmit } from '../ui';
import { useUnsavedForm } from '../comfort';
import { fill, useT } from '../i18n';

type User = Answer<'/admin/v1/users', 'get'>['users'][number];
type Role = User['role'];
const ROLES = bodyEnumOf('POST /admin/v1/users', 'role') as Role[];

function NewUser({ done }: { done: () => void }) {
  const t = useT();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('support');
  const [password, setPassword] = useState('');
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    await call('post', '/admin/v1/users', { body: { email, role, ...(name ? { name } : {}), ...(password ? { password } : {}) } });
    setEmail(''); setName(''); setPassword('');
    done();
    unsaved.saved();
  });
  return (
    <form {...unsaved.form} className="card" aria-labelledby="new-user" onSubmit={(e) => void submit(e)}>
      <h2 id="new-user">{t('disputes.users.newUser')}</h2>
      <div className="grid">
        <Field label={t('signIn.email')}>{(id) => <input id={id} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
        <Field label={t('common.name')}>{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <Field label={t('disputes.users.role')}>{(id) => <select id={id} value={role} onChange={(e) => setRole(e.target.value as Role)}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select>}</Field>
        <Field label={t('disputes.users.consolePassword')} hint={t('disputes.users.passwordHint')}>{(id) => <input id={id} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />}</Field>
      </div>
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('disputes.users.create')}</button></div>
    </form>
  );
}

function Tokens({ user }: { user: User }) {
  const tr = useT();
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
      {created && <ShownOnce label={tr('disputes.users.newToken')} value={created} />}
      <Show loaded={tokens} what="tokens">
        {(d) => d.tokens.length === 0 ? <Empty>{tr('disputes.users.noToken')}</Empty> : (
          <ul>{d.tokens.map((t) => (
            <li key={t.id}>
              <code>{t.prefix}…</code> {t.name} · {tr('disputes.users.lastUsed')} <Time iso={t.last_used_at as string | null} />
              {' '}· {t.expires_at ? <>{new Date(t.expires_at) <= new Date() ? tr('disputes.users.expired') : tr('disputes.users.expires')} <Time iso={t.expires_at} /></> : tr('disputes.users.neverExpires')}{' '}
              {t.revoked_at ? <>· {tr('disputes.users.revoked')} <Time iso={t.revoked_at} /></> : (
                <ConfirmButton label={tr('disputes.users.revoke')} danger title={fill(tr('disputes.users.revokeTitle'), { name: t.name })} action={async () => { await call('post', '/admin/v1/users/{id}/tokens/{token_id}/revoke', { params: { id: user.id, token_id: t.id } }); tokens.reload(); }} />
              )}
            </li>))}
          </ul>
        )}
      </Show>
      <form className="inline" onSubmit={(e) => void submit(e)} aria-label={fill(tr('disputes.users.newTokenFor'), { email: user.email })}>
        <Field label={tr('disputes.users.tokenName')}>{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} placeholder="api" />}</Field>
        <Field label={tr('disputes.users.expiresOptional')}>{(id) => <input id={id} type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />}</Field>
        <button type="submit">{tr('disputes.users.newToken')}</button>
      </form>
      {error && <ErrorNote error={error} />}
    </div>
  );
}

export function Users() {
  const t = useT();
  const can = useCan();
  const users = useLoad(() => call('get', '/admin/v1/users'), 'users');
  const [open, setOpen] = useState<string>();
  if (!can('users.manage')) return <ErrorNote error={new Error(t('disputes.users.onlyAdmins'))} />;
  return (
    <>
      <h1>{t('disputes.users.title')}</h1>
      <NewUser done={users.reload} />
      <Show loaded={users} what="users">
        {(d) => (
          <Table label={t('disputes.users.table')}>
            <thead><tr><th scope="col">{t('signIn.email')}</th><th scope="col">{t('common.name')}</th><th scope="col">{t('disputes.users.role')}</th><th scope="col">{t('disputes.users.colPassword')}</th><th scope="col">{t('common.state')}</th><th scope="col">{t('col.created')}</th><th scope="col">{t('disputes.users.colActions')}</th></tr></thead>
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
  const t = useT();
  const [password, setPassword] = useState('');
  return (
    <ConfirmButton label={user.has_password ? t('disputes.users.newPasswordButton') : t('disputes.users.setPassword')} confirmLabel={t('disputes.users.savePassword')} title={fill(t('disputes.users.passwordOf'), { email: user.email })}
      action={async () => { await call('patch', '/admin/v1/users/{id}', { params: { id: user.id }, body: { password } }); setPassword(''); done(); }}>
      <p>{t('disputes.users.passwordExplain')}</p>
      <Field label={t('disputes.users.newPassword')} hint={t('disputes.users.newPasswordHint')}>{(id) => <input id={id} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />}</Field>
    </ConfirmButton>
  );
}

/** A user's role: choosing another asks first (issue 31 item 9), since their permissions change at once. */
function RoleSelect({ user, change }: { user: User; change: (role: Role) => Promise<unknown> }) {
  const t = useT();
  const dialog = useRef<HTMLDialogElement>(null);
  const [pending, setPending] = useState<Role>();
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  const close = () => { setPending(undefined); dialog.current?.close(); };
  return (
    <>
      <select aria-label={fill(t('disputes.users.roleOf'), { email: user.email })} value={pending ?? user.role} onChange={(e) => { setPending(e.target.value as Role); dialog.current?.showModal(); }}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select>
      <dialog ref={dialog} aria-labelledby={titleId} onClose={() => setPending(undefined)}>
        <h2 id={titleId}>{fill(t('disputes.users.changeRoleTitle'), { email: user.email })}</h2>
        <p>{t('disputes.users.roleFrom')} <strong>{user.role}</strong> {t('disputes.users.roleTo')} <strong>{pending}</strong>{t('disputes.users.roleExplain')}</p>
        <div className="actions">
          <button type="button" onClick={close}>{t('ui.cancel')}</button>
          <button type="button" className="primary" disabled={busy} onClick={() => { if (!pending) return; setBusy(true); void change(pending).finally(() => { setBusy(false); close(); }); }}>{t('disputes.users.changeRole')}</button>
        </div>
      </dialog>
    </>
  );
}

function UserRow({ user, open, toggle, done }: { user: User; open: boolean; toggle: () => void; done: () => void }) {
  const t = useT();
  const [error, setError] = useState<Error>();
  const patch = (body: { role?: Role; disabled?: boolean }) => call('patch', '/admin/v1/users/{id}', { params: { id: user.id }, body }).then(done, setError);
  return (
    <>
      <tr>
        <td>{user.email}</td><td>{user.name}</td>
        <td><RoleSelect user={user} change={(role) => patch({ role })} /></td>
        <td>{user.has_password ? t('disputes.users.passwordSet') : '—'}</td>
        <td>{user.disabled ? t('disputes.users.disabled') : t('disputes.users.enabled')}</td>
        <td><Time iso={user.created_at} /></td>
        <td className="row-actions">
          <button type="button" aria-expanded={open} onClick={toggle}>{t('disputes.users.tokens')}</button>
          <SetPassword user={user} done={done} />
          <ConfirmButton label={user.disabled ? t('disputes.users.enable') : t('disputes.users.disable')} danger={!user.disabled} title={fill(t(user.disabled ? 'disputes.users.enableTitle' : 'disputes.users.disableTitle'), { email: user.email })} action={() => patch({ disabled: !user.disabled })} />
          {error && <ErrorNote error={error} />}
        </td>
      </tr>
      {open && <tr><td colSpan={7}><Tokens user={user} /></td></tr>}
    </>
  );
}
