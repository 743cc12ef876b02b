/** Team: the business's users and open invitations; the owner invites, changes roles, disables; the business's own audit log. */
import { useState } from 'react';
import { call, type TeamUser } from '../api';
import { useCan, useSession } from '../session';
import { roleName, useI18n, useT } from '../i18n';
import { ConfirmButton, Empty, ErrorNote, Field, Show, Table, Time, useLoad, useSubmit } from '../../../console/src/ui';

const ROLES = ['owner', 'developer', 'finance', 'support', 'viewer'] as const;
type Role = (typeof ROLES)[number];

function Invite({ done }: { done: () => void }) {
  const t = useT();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const { busy, error, submit } = useSubmit(async () => {
    await call('post', '/portal/v1/team', { body: { email, role, ...(name.trim() ? { name: name.trim() } : {}) } });
    setEmail('');
    setName('');
    done();
  });
  return (
    <form className="filters" aria-label={t('team.invite')} onSubmit={(e) => void submit(e)}>
      <Field label={t('signIn.email')}>{(id) => <input id={id} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
      <Field label={t('team.name')}>{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
      <Field label={t('team.role')}>{(id) => <select id={id} value={role} onChange={(e) => setRole(e.target.value as Role)}>{ROLES.map((r) => <option key={r} value={r}>{roleName(t, r)}</option>)}</select>}</Field>
      {error && <ErrorNote error={error} />}
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('team.send')}</button></div>
    </form>
  );
}

function UserRow({ u, manage, done }: { u: TeamUser; manage: boolean; done: () => void }) {
  const { session } = useSession();
  const { t, rich } = useI18n();
  const [error, setError] = useState<Error>();
  const patch = (body: { role?: Role; disabled?: boolean }) => call('patch', '/portal/v1/team/{id}', { params: { id: u.id }, body }).then(done, setError);
  const self = u.id === session.user.id;
  return (
    <tr>
      <td>{u.name}</td><td>{u.email}</td>
      <td>{manage && !self
        ? <select aria-label={t('team.roleOf', { email: u.email })} value={u.role} onChange={(e) => void patch({ role: e.target.value as Role })}>{ROLES.map((r) => <option key={r} value={r}>{roleName(t, r)}</option>)}</select>
        : roleName(t, u.role)}</td>
      <td>{u.disabled ? t('team.disabled') : u.has_password ? t('team.active') : rich('team.invited', { time: <Time iso={u.invitation_expires_at} /> })}</td>
      <td>
        {manage && !self && <div className="actions">
          {!u.has_password && <ConfirmButton label={t('team.newLink')} title={t('team.newLinkTitle', { email: u.email })} action={() => call('post', '/portal/v1/team/{id}/invitation', { params: { id: u.id } }).then(done)}><p>{t('team.earlierLinks')}</p></ConfirmButton>}
          <button type="button" onClick={() => void patch({ disabled: !u.disabled })}>{u.disabled ? t('team.enable') : t('team.disable')}</button>
        </div>}
        {error && <ErrorNote error={error} />}
      </td>
    </tr>
  );
}

/** The reason a user gave with a refund, capture or void (the audit entry's details.reason_given). */
const reasonOf = (details: unknown): string | undefined => {
  const given = details && typeof details === 'object' ? (details as { reason_given?: unknown }).reason_given : undefined;
  return typeof given === 'string' ? given : undefined;
};

function AuditLog() {
  const t = useT();
  const entries = useLoad(() => call('get', '/portal/v1/audit', { query: { limit: '50' } }), 'audit');
  return (
    <section aria-labelledby="audit">
      <h2 id="audit">{t('audit.title')}</h2>
      <Show loaded={entries} what={t('audit.what')}>{({ entries: list }) => list.length === 0 ? <Empty>{t('audit.none')}</Empty> : (
        <Table label={t('audit.title')}>
          <thead><tr><th scope="col">{t('col.when')}</th><th scope="col">{t('col.who')}</th><th scope="col">{t('col.what')}</th><th scope="col">{t('col.object')}</th></tr></thead>
          <tbody>{list.map((e) => <tr key={e.id}><td><Time iso={e.at} /></td><td>{e.user_name}</td><td>{e.action}{reasonOf(e.details) ? ` (${reasonOf(e.details)})` : ''}</td><td>{e.object_type} {e.object_id.slice(0, 8)}</td></tr>)}</tbody>
        </Table>
      )}</Show>
    </section>
  );
}

export function Team() {
  const t = useT();
  const can = useCan();
  const team = useLoad(() => call('get', '/portal/v1/team'), 'team');
  return (
    <>
      <h1>{t('nav.team')}</h1>
      {can('team.manage') && <section aria-labelledby="invite"><h2 id="invite">{t('team.invite')}</h2><Invite done={team.reload} /></section>}
      <section aria-labelledby="users">
        <h2 id="users">{t('team.users')}</h2>
        <Show loaded={team} what={t('team.what')}>{({ users }) => (
          <Table label={t('team.users')}>
            <thead><tr><th scope="col">{t('team.name')}</th><th scope="col">{t('signIn.email')}</th><th scope="col">{t('team.role')}</th><th scope="col">{t('team.state')}</th><th scope="col">{t('payment.actions')}</th></tr></thead>
            <tbody>{users.map((u) => <UserRow key={u.id} u={u} manage={can('team.manage')} done={team.reload} />)}</tbody>
          </Table>
        )}</Show>
      </section>
      {can('audit.read') && <AuditLog />}
    </>
  );
}
