/**
 * The backtest view (issue 26): a candidate rule set (the scope's saved one to start from, or the draft the rules
 * editor sent) run over the scope's payments of the last days. It shows what the candidate would have allowed,
 * blocked, held for review and challenged, examples of each, and the approved volume it would have lost. Nothing is
 * written; the API validates the candidate as a save does and its problems show here.
 */
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { call, type Answer } from '../api/client';
import { useMerchants } from '../names';
import { Empty, ErrorNote, Field, FieldErrors, InlineErrors, Money, Show, StatusBadge, Table, errorsByField, useLoad, useSubmit } from '../ui';
import { ScopePicker, scopeName, useScope } from './RiskScope';
import { fill, useT, type Key } from '../i18n';

type Result = Answer<'/admin/v1/risk/rules/{scope}/backtest', 'post'>;
const OUTCOMES: readonly { key: 'block' | 'review' | 'require_3ds'; label: Key }[] = [
  { key: 'block', label: 'risk.wouldBlock' },
  { key: 'review', label: 'risk.wouldReview' },
  { key: 'require_3ds', label: 'risk.would3ds' },
];

const volumes = (v: Record<string, string>) => {
  const entries = Object.entries(v);
  return entries.length === 0 ? '—' : entries.map(([c, a], i) => <span key={c}>{i > 0 && ', '}<Money amount={a} currency={c} /></span>);
};

function Results({ r }: { r: Result }) {
  const t = useT();
  const unreplayed = Object.entries(r.not_replayable);
  return (
    <section className="result" aria-labelledby="backtest-result" role="status">
      <h2 id="backtest-result">{fill(t('risk.backtestOf'), { n: r.payments, days: r.days })}</h2>
      <dl className="facts" aria-label={t('risk.backtestOutcomes')}>
        <div><dt>{t('risk.allowed')}</dt><dd>{r.counts.allow}</dd></div>
        <div><dt>{t('risk.blocked')}</dt><dd>{r.counts.block}</dd></div>
        <div><dt>{t('risk.heldForReview')}</dt><dd>{r.counts.review}</dd></div>
        <div><dt>{t('risk.threeDsAsked')}</dt><dd>{r.counts.require_3ds}</dd></div>
        <div><dt>{t('risk.approvedLost')}</dt><dd>{r.lost_approved.count} ({volumes(r.lost_approved.volume)})</dd></div>
        <div><dt>{t('risk.approvedHeld')}</dt><dd>{r.reviewed_approved.count} ({volumes(r.reviewed_approved.volume)})</dd></div>
      </dl>
      {unreplayed.length > 0 && (
        <p className="warn">{fill(t('risk.notReplayable'), { list: unreplayed.map(([n, c]) => fill(t('risk.onPayments'), { name: n, n: c })).join('; ') })}</p>
      )}
      {OUTCOMES.map((o) => r.examples[o.key].length > 0 && (
        <Table key={o.key} label={fill(t('risk.examples'), { outcome: t(o.label) })}>
          <thead><tr><th scope="col">{t('risk.payment')}</th><th scope="col">{t('col.amount')}</th><th scope="col">{t('col.status')}</th><th scope="col">{t('risk.why')}</th></tr></thead>
          <tbody>{r.examples[o.key].map((e) => (
            <tr key={e.payment_id}><td><Link to={`/payments/${e.payment_id}`}>{e.payment_id.slice(0, 8)}…</Link></td><td><Money amount={e.amount} currency={e.currency} /></td><td><StatusBadge status={e.status} /></td><td>{e.reason}</td></tr>
          ))}</tbody>
        </Table>
      ))}
      {r.counts.block + r.counts.review + r.counts.require_3ds === 0 && <Empty>{t('risk.allowedEvery')}</Empty>}
    </section>
  );
}

function BacktestForm({ scope, start }: { scope: string; start: unknown }) {
  const t = useT();
  const [text, setText] = useState(() => JSON.stringify(start, null, 2));
  const [days, setDays] = useState('30');
  const [result, setResult] = useState<Result>();
  const { busy, error, submit } = useSubmit(async () => {
    setResult(undefined);
    let rules: unknown;
    try { rules = JSON.parse(text); } catch { rules = text; } // unreadable: the API names it
    setResult(await call('post', '/admin/v1/risk/rules/{scope}/backtest', { params: { scope }, body: { rules, days: /^\d+$/.test(days.trim()) ? Number(days.trim()) : (days as unknown as number) } }));
  });
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form className="card" aria-labelledby="backtest" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="backtest">{t('risk.candidate')}</h2>
        <p className="sub">{t('risk.candidateExplain')}</p>
        <div className="grid">
          <Field label={t('risk.daysBack')} hint={t('risk.days1to90')} path="days">{(id, aria) => <input id={id} {...aria} inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />}</Field>
        </div>
        <Field label={t('risk.rulesJson')} path="rules">{(id, aria) => (
          <textarea id={id} {...aria} rows={12} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} />)}
        </Field>
        <InlineErrors path="rules" />
        {error && <ErrorNote error={error} />}
        <div className="actions"><button type="submit" className="primary" disabled={busy}>{busy ? t('risk.running') : t('risk.runBacktest')}</button></div>
      </form>
      {result && <Results r={result} />}
    </FieldErrors.Provider>
  );
}

export function RiskBacktest() {
  const t = useT();
  const [scope] = useScope();
  const merchants = useMerchants();
  const draft = (useLocation().state as { rules?: unknown } | null)?.rules;
  const saved = useLoad(() => (draft ? Promise.resolve(draft) : call('get', '/admin/v1/risk/rules/{scope}', { params: { scope } }).then((r) => r.rules)), `backtest-${scope}`);
  return (
    <>
      <ScopePicker />
      <p>{fill(draft ? t('risk.draftOf') : t('risk.savedOf'), { scope: scopeName(scope, merchants, t) })}</p>
      <Show loaded={saved} what="the rules">{(rules) => <BacktestForm key={scope} scope={scope} start={rules} />}</Show>
    </>
  );
}
