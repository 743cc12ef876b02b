/** A payment's risk evaluation (issue 26): what the screen decided and why, as GET /admin/v1/payments/{id} shows it. */
import { useState } from 'react';
import { Link } from 'react-router';
import { ConfirmButton, Empty, Field, Table, Time } from '../ui';
import { call, type PaymentDetail } from '../api/client';
import { fill, useT, type Key } from '../i18n';

type Risk = NonNullable<PaymentDetail['risk']>;
interface Match { scope: string; index: number; name: string; mode: string; action: string; points?: number }
interface Hit { list: string; kind: string; value: string; reason: string; scope: string }
interface Failed { scope: string; index: number; name: string; error: string }

/** The evaluation's parts, typed as the engine records them (the API describes `evaluation` as an open object). */
function partsOf(r: Risk): { matched: Match[]; lists: Hit[]; failed: Failed[]; velocity: [string, string][] } {
  const e = r.evaluation as { matched?: Match[]; lists?: Hit[]; failed?: Failed[]; velocity?: Record<string, string> };
  return { matched: e.matched ?? [], lists: e.lists ?? [], failed: e.failed ?? [], velocity: Object.entries(e.velocity ?? {}) };
}

/** The screen's line in the payment's timeline (the transactions table): when it ran, what it decided. */
export function riskTimelineText(r: Risk): string {
  return `${r.action}${r.review ? ` (review ${r.review})` : ''}: ${r.reason}`;
}

export function PaymentRisk({ risk }: { risk: Risk | null }) {
  const t = useT();
  if (!risk) return <Empty>{t('risk.notScreened')}</Empty>;
  const { matched, lists, failed, velocity } = partsOf(risk);
  return (
    <>
      <dl className="facts">
        <div><dt>{t('risk.outcome')}</dt><dd>{risk.action}</dd></div>
        <div><dt>{t('risk.why')}</dt><dd>{risk.reason}</dd></div>
        <div><dt>{t('risk.score')}</dt><dd>{risk.score}</dd></div>
        <div><dt>{t('risk.screenedAt')}</dt><dd><Time iso={risk.screened_at} /></dd></div>
        <div><dt>{t('risk.device')}</dt><dd>{risk.device_id ? <code>{risk.device_id}</code> : '—'}</dd></div>
        <div><dt>{t('risk.countedAs')}</dt><dd>{risk.outcome ?? '—'}</dd></div>
        <div><dt>{t('risk.review')}</dt><dd>{risk.review ? <>{risk.review}{risk.review_deadline && risk.review === 'pending' ? <>, {t('risk.decidedBy')} <Time iso={risk.review_deadline} /></> : null}</> : '—'}</dd></div>
      </dl>
      {matched.length > 0 && (
        <Table label={t('risk.rulesMatched')}>
          <thead><tr><th scope="col">{t('risk.rule')}</th><th scope="col">{t('risk.scope')}</th><th scope="col">{t('risk.mode')}</th><th scope="col">{t('risk.outcome')}</th></tr></thead>
          <tbody>{matched.map((m) => <tr key={`${m.scope}${m.index}`}><td>{m.index + 1}. {m.name}</td><td>{m.scope}</td><td>{m.mode}</td><td>{m.action}{m.points !== undefined ? ` +${m.points}` : ''}</td></tr>)}</tbody>
        </Table>
      )}
      {lists.length > 0 && (
        <Table label={t('risk.listsHit')}>
          <thead><tr><th scope="col">{t('risk.list')}</th><th scope="col">{t('risk.kind')}</th><th scope="col">{t('risk.value')}</th><th scope="col">{t('risk.reason')}</th><th scope="col">{t('risk.scope')}</th></tr></thead>
          <tbody>{lists.map((h) => <tr key={`${h.scope}${h.list}${h.kind}${h.value}`}><td>{h.list}</td><td>{h.kind}</td><td><code>{h.value}</code></td><td>{h.reason}</td><td>{h.scope}</td></tr>)}</tbody>
        </Table>
      )}
      {velocity.length > 0 && (
        <Table label={t('risk.velocitySeen')}>
          <thead><tr><th scope="col">{t('risk.counter')}</th><th scope="col">{t('risk.value')}</th></tr></thead>
          <tbody>{velocity.map(([k, v]) => <tr key={k}><td><code>{k}</code></td><td>{v}</td></tr>)}</tbody>
        </Table>
      )}
      {failed.length > 0 && <p className="warn">{t('risk.failedSkipped')} {failed.map((f) => `${f.scope} ${f.index + 1}. ${f.name} (${f.error})`).join('; ')}</p>}
    </>
  );
}

const KINDS: { key: 'card' | 'email' | 'email_domain' | 'ip' | 'device' | 'bin' | 'country'; label: Key }[] = [
  { key: 'card', label: 'risk.kindCardFingerprint' }, { key: 'email', label: 'risk.kindEmail' }, { key: 'email_domain', label: 'risk.kindEmailDomain' },
  { key: 'ip', label: 'risk.kindIp' }, { key: 'device', label: 'risk.device' }, { key: 'bin', label: 'risk.kindBin' }, { key: 'country', label: 'risk.kindBillingCountry' },
];
type Kind = (typeof KINDS)[number]['key'];

/** Adds the payment's values (its card by fingerprint, e-mail, IP, device, ...) to an allow or block list in one action. */
export function ListPaymentValues({ paymentId, merchantId }: { paymentId: string; merchantId: string }) {
  const t = useT();
  const [list, setList] = useState<'block' | 'allow'>('block');
  const [scope, setScope] = useState<'platform' | 'merchant'>('platform');
  const [kinds, setKinds] = useState<Kind[]>(['card', 'email']);
  const [reason, setReason] = useState('');
  const [listed, setListed] = useState<string>();
  const target = scope === 'platform' ? 'platform' : merchantId;
  return (
    <div className="actions">
      <ConfirmButton label={t('risk.addToAList')} confirmLabel={t('risk.addToTheList')} title={t('risk.addValuesTitle')}
        action={async () => {
          const entries = await call('post', '/admin/v1/risk/lists/{scope}/from-payment', { params: { scope: target }, body: { payment_id: paymentId, list, kinds, reason } });
          setListed(entries.map((e) => `${e.kind} ${e.value}`).join(', '));
        }}>
        <div className="grid">
          <Field label={t('risk.list')}>{(id) => <select id={id} value={list} onChange={(e) => setList(e.target.value as 'block')}><option value="block">{t('risk.block')}</option><option value="allow">{t('risk.allow')}</option></select>}</Field>
          <Field label={t('risk.of')}>{(id) => <select id={id} value={scope} onChange={(e) => setScope(e.target.value as 'platform')}><option value="platform">{t('risk.platformEvery')}</option><option value="merchant">{t('risk.thisPaymentsMerchant')}</option></select>}</Field>
        </div>
        <fieldset className="chips operations">
          <legend>{t('risk.whichValues')}</legend>
          {KINDS.map((k) => (
            <label key={k.key} className="check"><input type="checkbox" checked={kinds.includes(k.key)}
              onChange={(e) => setKinds(e.target.checked ? [...kinds, k.key] : kinds.filter((x) => x !== k.key))} /> {t(k.label)}</label>
          ))}
        </fieldset>
        <Field label={t('risk.reason')}>{(id) => <input id={id} required value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
      </ConfirmButton>
      {listed !== undefined && <p role="status">{fill(t('risk.listed'), { values: listed })} <Link to={`/risk/lists${target === 'platform' ? '' : `?scope=${encodeURIComponent(target)}`}`}>{t('risk.seeLists')}</Link></p>}
    </div>
  );
}
