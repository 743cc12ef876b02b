/**
 * Risk (issue 26): the review queue, the card payments the risk engine holds for an operator before any acquirer
 * call. Each is approved (it goes on to its acquirer) or declined (declined by risk management), with a note, one
 * by one or several at once; undecided, it is declined at its deadline.
 */
import { useState } from 'react';
import { Link, NavLink, Route, Routes } from 'react-router';
import { call } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton, Empty, Field, Money, Show, Table, Time, useLoad } from '../ui';
import { RiskRules } from './RiskRules';
import { RiskLists } from './RiskLists';
import { RiskBacktest } from './RiskBacktest';
import { fill, useT } from '../i18n';

type Decision = 'approve' | 'decline';

/** Approve or decline one or several held payments with one note (the bulk route decides each on its own). */
function Decide({ ids, decision, label, done }: { ids: string[]; decision: Decision; label: string; done: () => void }) {
  const t = useT();
  const [note, setNote] = useState('');
  const title = ids.length === 1 ? fill(t('risk.decideOne'), { label }) : fill(t('risk.decideMany'), { label, n: ids.length });
  return (
    <ConfirmButton label={`${label}…`} confirmLabel={label} title={title} danger={decision === 'decline'} disabled={ids.length === 0}
      action={async () => {
        const answer = await call('post', '/admin/v1/risk/reviews/decide', { body: { payment_ids: ids, decision, note } });
        const failed = answer.results.flatMap((r) => ('error' in r ? [`${r.payment_id}: ${r.error}`] : []));
        done();
        if (failed.length > 0) throw new Error(fill(t('risk.notDecided'), { list: failed.join('; ') }));
      }}>
      <p>{decision === 'approve' ? t('risk.approveExplain') : t('risk.declineExplain')}</p>
      <Field label={t('risk.decideNote')}>{(fid) => <textarea id={fid} required value={note} onChange={(e) => setNote(e.target.value)} />}</Field>
    </ConfirmButton>
  );
}

function Reviews() {
  const t = useT();
  const can = useCan();
  const queue = useLoad(() => call('get', '/admin/v1/risk/reviews', { query: {} }), 'reviews');
  const [picked, setPicked] = useState<string[]>([]);
  const done = () => { setPicked([]); queue.reload(); };
  const acts = can('risk.write');
  return (
    <>
      <section aria-labelledby="reviews">
        <h2 id="reviews">{t('risk.reviewQueue')}</h2>
        <p className="sub">{t('risk.reviewExplain')}</p>
        <Show loaded={queue} what="the review queue">
          {(d) => d.reviews.length === 0 ? <Empty>{t('risk.noReviews')}</Empty> : (
            <>
              {acts && (
                <div className="actions" aria-label={t('risk.decideSelected')}>
                  <Decide ids={picked} decision="approve" label={t('risk.approveSelected')} done={done} />
                  <Decide ids={picked} decision="decline" label={t('risk.declineSelected')} done={done} />
                </div>
              )}
              <Table label={t('risk.heldTable')}>
                <thead><tr>{acts && <th scope="col">{t('risk.select')}</th>}<th scope="col">{t('risk.deadline')}</th><th scope="col">{t('risk.payment')}</th><th scope="col">{t('col.amount')}</th><th scope="col">{t('risk.intent')}</th><th scope="col">{t('col.payer')}</th><th scope="col">{t('risk.why')}</th><th scope="col">{t('risk.score')}</th>{acts && <th scope="col">{t('risk.decide')}</th>}</tr></thead>
                <tbody>{d.reviews.map((r) => (
                  <tr key={r.payment_id}>
                    {acts && <td><input type="checkbox" aria-label={fill(t('risk.selectOrder'), { order: r.order_id })} checked={picked.includes(r.payment_id)}
                      onChange={(e) => setPicked((p) => (e.target.checked ? [...p, r.payment_id] : p.filter((x) => x !== r.payment_id)))} /></td>}
                    <td><Time iso={r.deadline} /></td>
                    <td><Link to={`/payments/${r.payment_id}`}>{r.order_id}</Link></td>
                    <td><Money amount={r.amount} currency={r.currency} /></td>
                    <td>{r.intent}</td>
                    <td>{r.payer_email ?? '—'}</td>
                    <td>{r.reason}</td>
                    <td>{r.score}</td>
                    {acts && <td><Decide ids={[r.payment_id]} decision="approve" label={t('risk.approve')} done={done} /> <Decide ids={[r.payment_id]} decision="decline" label={t('risk.decline')} done={done} /></td>}
                  </tr>))}
                </tbody>
              </Table>
            </>
          )}
        </Show>
      </section>
    </>
  );
}

/** The Risk screen: the review queue, the rules editor, the lists and the backtest, each at its own address. */
export function Risk() {
  const t = useT();
  return (
    <>
      <h1>{t('nav.risk')}</h1>
      <nav aria-label={t('risk.sections')} className="tabs">
        <NavLink to="/risk" end>{t('risk.reviewQueue')}</NavLink>
        <NavLink to="/risk/rules">{t('risk.rules')}</NavLink>
        <NavLink to="/risk/lists">{t('risk.lists')}</NavLink>
        <NavLink to="/risk/backtest">{t('risk.backtest')}</NavLink>
      </nav>
      <Routes>
        <Route index element={<Reviews />} />
        <Route path="rules" element={<RiskRules />} />
        <Route path="lists" element={<RiskLists />} />
        <Route path="backtest" element={<RiskBacktest />} />
      </Routes>
    </>
  );
}

/** The console home's risk widget: what the screen did in the last 24 hours, and the reviews waiting. */
export function RiskHomeWidget() {
  const t = useT();
  const summary = useLoad(() => call('get', '/admin/v1/risk/summary', { query: {} }), 'risk-summary');
  return (
    <section aria-labelledby="risk-home">
      <h2 id="risk-home">{t('risk.last24')}</h2>
      <Show loaded={summary} what="the risk figures">
        {(s) => (
          <>
            <dl className="facts">
              <div><dt>{t('risk.screened')}</dt><dd>{s.screened}</dd></div>
              <div><dt>{t('risk.blocked')}</dt><dd>{s.blocked}</dd></div>
              <div><dt>{t('risk.reviewed')}</dt><dd>{s.reviewed}</dd></div>
              <div><dt>{t('risk.shadowMatched')}</dt><dd>{s.shadow_matched}</dd></div>
              <div><dt>{t('risk.threeDsAsked')}</dt><dd>{s.challenged}</dd></div>
              <div><dt>{t('risk.reviewsWaiting')}</dt><dd><Link to="/risk">{s.reviews_pending}</Link></dd></div>
            </dl>
            {s.rules.length > 0 && (
              <table aria-label={t('risk.byRule')}>
                <thead>
                  <tr><th scope="col">{t('risk.rule')}</th><th scope="col">{t('risk.blocks')}</th><th scope="col">{t('risk.reviews')}</th><th scope="col">{t('risk.shadowMatches')}</th><th scope="col">{t('risk.failures')}</th></tr>
                </thead>
                <tbody>
                  {s.rules.map((r) => (
                    <tr key={`${r.scope}:${r.merchant_id ?? ''}:${r.rule}`}>
                      <th scope="row">{r.rule} <small>({r.scope === 'platform' ? t('risk.scopePlatform') : t('risk.scopeMerchant')})</small></th>
                      <td>{r.blocked}</td><td>{r.reviewed}</td><td>{r.shadow}</td><td>{r.failed}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </Show>
    </section>
  );
}
