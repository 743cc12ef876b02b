/**
 * The risk rules editor (issue 26): a scope's ordered rule set (the platform's, run first for every merchant, or a
 * merchant's), each rule with its mode (active, shadow: recorded with no effect, off), its conditions and its
 * outcome; score thresholds; saved whole as the next version with a note (compare-and-set on the version read;
 * audited). The API validates the whole set: its D3 problems show at the rule and field they name. Conditions this
 * console does not edit field by field (merchants, MIDs, custom data, 3-D Secure results, a newer gateway's) are
 * kept as JSON, never dropped. Earlier versions can be restored; a draft can be backtested before it is saved.
 */
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { call, type Answer } from '../api/client';
import { useCan } from '../session';
import { useMerchants } from '../names';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, InlineErrors, Show, Table, Time, errorsByField, useLoad, useSubmit } from '../ui';
import { PLATFORM, ScopePicker, scopeName, useScope } from './RiskScope';
import { useUnsavedForm } from '../comfort';
import { fill, useT, type Key, type Translate } from '../i18n';

type Json = Record<string, unknown>;
type RuleSetView = Answer<'/admin/v1/risk/rules/{scope}', 'get'>;

const MODES = ['active', 'shadow', 'off'] as const;
const MODE_LABELS: Record<string, Key> = { active: 'risk.modeActive', shadow: 'risk.modeShadow', off: 'risk.modeOff' };
const ACTIONS = ['block', 'review', 'require_3ds', 'allow', 'score'] as const;
const ACTION_LABELS: Record<string, Key> = { block: 'risk.block', review: 'risk.holdForReview', require_3ds: 'risk.require3ds', allow: 'risk.allow', score: 'risk.addToScore' };
const MEASURES = ['attempts', 'declines', 'approvals', 'amount', 'distinct_cards'] as const;
const MEASURE_LABELS: Record<string, Key> = { attempts: 'risk.attempts', declines: 'risk.declines', approvals: 'risk.approvals', amount: 'col.amount', distinct_cards: 'risk.distinctCards' };
const BYS = ['card', 'email', 'ip', 'device', 'session', 'merchant'] as const;
const BY_LABELS: Record<string, Key> = { card: 'risk.byCard', email: 'risk.byEmail', ip: 'risk.byIp', device: 'risk.byDevice', session: 'risk.bySession', merchant: 'risk.scopeMerchant' };
const MISMATCHES: { key: string; label: Key }[] = [
  { key: 'card_ip', label: 'risk.mismatchCardIp' }, { key: 'card_billing', label: 'risk.mismatchCardBilling' }, { key: 'ip_billing', label: 'risk.mismatchIpBilling' },
];
const OPERATIONS = ['sale', 'auth', 'payout'];
const CHANNELS = ['s2s_card', 'checkout', 's2s_apm', 'schedule'];

/** Conditions typed as comma-separated lists, in the order the form shows them. */
const LIST_CONDITIONS: { key: string; label: Key; hint: Key | null; example?: string; upper?: boolean; lower?: boolean }[] = [
  { key: 'currencies', label: 'risk.currencies', hint: 'risk.hintCurrencies', upper: true },
  { key: 'brands', label: 'risk.brands', hint: null, example: 'visa, mastercard, …', lower: true },
  { key: 'card_countries', label: 'risk.cardCountries', hint: 'risk.hintIssuing', upper: true },
  { key: 'billing_countries', label: 'risk.billingCountries', hint: 'risk.twoLetters', upper: true },
  { key: 'ip_countries', label: 'risk.ipCountries', hint: 'risk.twoLetters', upper: true },
  { key: 'ips', label: 'risk.payerIps', hint: 'risk.hintIps' },
  { key: 'email_domains', label: 'risk.emailDomains', hint: null, example: 'mailinator.com, …', lower: true },
  { key: 'methods', label: 'risk.methods', hint: 'risk.hintMethods', lower: true },
];
const FLAGS: { key: 'recurring' | 'merchant_initiated' | 'sandbox'; label: Key; yes: Key; no: Key }[] = [
  { key: 'recurring', label: 'risk.recurring', yes: 'risk.recurringOnly', no: 'risk.notRecurring' },
  { key: 'merchant_initiated', label: 'risk.mit', yes: 'risk.mitOnly', no: 'risk.payerPresent' },
  { key: 'sandbox', label: 'risk.sandbox', yes: 'risk.sandboxOnly', no: 'risk.liveOnly' },
];
const EDITED = new Set([...LIST_CONDITIONS.map((c) => c.key), 'amount', 'bin_ranges', 'country_mismatch', 'operations', 'channels', 'velocity', ...FLAGS.map((f) => f.key)]);

type Tri = '' | 'true' | 'false';
interface VelocityDraft { measure: string; by: string; window: string; moreThan: string; moreThanAmount: string; currency: string }
interface Draft {
  key: number;
  name: string;
  mode: string;
  action: string;
  points: string;
  lists: Record<string, string>;
  amountMin: string;
  amountMax: string;
  binRanges: string;
  mismatch: string[];
  operations: string[];
  channels: string[];
  flags: Record<string, Tri>;
  velocity: VelocityDraft[];
  /** Conditions edited as JSON (merchants, MIDs, custom data, 3-D Secure results, anything newer). */
  otherWhen: string;
}

let nextKey = 0;
const split = (text: string, c?: { upper?: boolean; lower?: boolean }) =>
  text.split(/[\s,]+/).filter(Boolean).map((x) => (c?.upper ? x.toUpperCase() : c?.lower ? x.toLowerCase() : x));
/** A figure typed as text goes as a number; text that is not one goes as it is, for the API to name. */
const figure = (text: string): unknown => (text.trim() !== '' && /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text);
const parseJson = (text: string): unknown => { try { return JSON.parse(text); } catch { return text; } };

function toDraft(rule: Json): Draft {
  const when = (rule.when ?? {}) as Json;
  const then = (rule.then ?? { action: 'block' }) as { action?: string; points?: number };
  const amount = (when.amount ?? {}) as { min?: string; max?: string };
  const other = Object.fromEntries(Object.entries(when).filter(([k]) => !EDITED.has(k)));
  const tri = (v: unknown): Tri => (v === undefined ? '' : v ? 'true' : 'false');
  return {
    key: nextKey++,
    name: String(rule.name ?? ''),
    mode: String(rule.mode ?? 'active'),
    action: String(then.action ?? 'block'),
    points: then.points === undefined ? '' : String(then.points),
    lists: Object.fromEntries(LIST_CONDITIONS.map((c) => [c.key, ((when[c.key] as string[] | undefined) ?? []).join(', ')])),
    amountMin: amount.min ?? '',
    amountMax: amount.max ?? '',
    binRanges: ((when.bin_ranges as { from: string; to: string }[] | undefined) ?? []).map((r) => (r.from === r.to ? r.from : `${r.from}-${r.to}`)).join(', '),
    mismatch: (when.country_mismatch as string[] | undefined) ?? [],
    operations: (when.operations as string[] | undefined) ?? [],
    channels: (when.channels as string[] | undefined) ?? [],
    flags: Object.fromEntries(FLAGS.map((f) => [f.key, tri(when[f.key])])),
    velocity: ((when.velocity as Json[] | undefined) ?? []).map((v) => ({
      measure: String(v.measure ?? 'attempts'), by: String(v.by ?? 'card'), window: v.window_minutes === undefined ? '' : String(v.window_minutes),
      moreThan: v.more_than === undefined ? '' : String(v.more_than), moreThanAmount: String(v.more_than_amount ?? ''), currency: String(v.currency ?? ''),
    })),
    otherWhen: Object.keys(other).length > 0 ? JSON.stringify(other, null, 2) : '',
  };
}

function toRule(d: Draft): Json {
  const when: Json = {};
  for (const c of LIST_CONDITIONS) if (d.lists[c.key]?.trim()) when[c.key] = split(d.lists[c.key]!, c);
  if (d.amountMin || d.amountMax) when.amount = { ...(d.amountMin ? { min: d.amountMin.trim() } : {}), ...(d.amountMax ? { max: d.amountMax.trim() } : {}) };
  if (d.binRanges.trim()) when.bin_ranges = split(d.binRanges).map((r) => { const [from = '', to = from] = r.split('-'); return { from, to }; });
  if (d.mismatch.length > 0) when.country_mismatch = d.mismatch;
  if (d.operations.length > 0) when.operations = d.operations;
  if (d.channels.length > 0) when.channels = d.channels;
  for (const f of FLAGS) if (d.flags[f.key]) when[f.key] = d.flags[f.key] === 'true';
  if (d.velocity.length > 0) {
    when.velocity = d.velocity.map((v) => ({
      measure: v.measure, by: v.by, window_minutes: figure(v.window),
      ...(v.measure === 'amount' ? { more_than_amount: v.moreThanAmount.trim(), currency: v.currency.trim().toUpperCase() } : { more_than: figure(v.moreThan) }),
    }));
  }
  if (d.otherWhen.trim()) {
    const other = parseJson(d.otherWhen);
    if (other && typeof other === 'object' && !Array.isArray(other)) Object.assign(when, other);
    else when.other = other; // unreadable: sent so that the API names it
  }
  return { name: d.name, mode: d.mode, when, then: d.action === 'score' ? { action: 'score', points: figure(d.points) } : { action: d.action } };
}

/** A rule's conditions in a few words, for the overview. */
function summary(rule: Json, t: Translate): string {
  const when = (rule.when ?? {}) as Json;
  const parts = Object.entries(when).map(([k, v]) => {
    if (k === 'velocity') {
      const label = (labels: Record<string, Key>, v: unknown) => (labels[String(v)] ? t(labels[String(v)]!) : String(v));
      return (v as Json[]).map((x) => fill(t('risk.sumVelocity'), { measure: label(MEASURE_LABELS, x.measure), by: label(BY_LABELS, x.by), minutes: String(x.window_minutes), limit: String(x.more_than ?? `${x.more_than_amount} ${x.currency}`) })).join(t('risk.sumAnd'));
    }
    if (k === 'amount') { const a = v as { min?: string; max?: string }; return fill(t('risk.sumAmount'), { min: a.min ?? '…', max: a.max ?? '…' }); }
    if (Array.isArray(v)) return `${k.replace(/_/g, ' ')}: ${v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ')}`;
    return `${k.replace(/_/g, ' ')}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
  });
  return parts.length > 0 ? parts.join('; ') : t('risk.everyPayment');
}
const outcome = (rule: Json, t: Translate): string => {
  const then = (rule.then ?? {}) as { action?: string; points?: number };
  return then.action === 'score' ? fill(t('risk.scorePlus'), { points: String(then.points) }) : ACTION_LABELS[String(then.action)] ? t(ACTION_LABELS[String(then.action)]!) : String(then.action);
};

/** The rules in the order they run: the first active rule with a deciding outcome that matches decides. */
function Overview({ label, rules, offset = 0 }: { label: string; rules: Json[]; offset?: number }) {
  const t = useT();
  if (rules.length === 0) return <Empty>{t('risk.noRule')}</Empty>;
  return (
    <Table label={label}>
      <thead><tr><th scope="col">{t('risk.order')}</th><th scope="col">{t('risk.rule')}</th><th scope="col">{t('risk.mode')}</th><th scope="col">{t('risk.when')}</th><th scope="col">{t('risk.then')}</th></tr></thead>
      <tbody>{rules.map((r, i) => (
        <tr key={i}><td>{offset + i + 1}</td><td>{String(r.name)}</td><td>{String(r.mode)}</td><td>{summary(r, t)}</td><td>{outcome(r, t)}</td></tr>
      ))}</tbody>
    </Table>
  );
}

function VelocityEditor({ draft, index, set }: { draft: Draft; index: number; set: (d: Partial<Draft>) => void }) {
  const t = useT();
  const at = `rules.rules[${index}].when.velocity`;
  const update = (i: number, patch: Partial<VelocityDraft>) => set({ velocity: draft.velocity.map((v, j) => (j === i ? { ...v, ...patch } : v)) });
  return (
    <fieldset className="switch-group">
      <legend>{t('risk.velocityLegend')}</legend>
      {draft.velocity.map((v, i) => {
        const vat = `${at}[${i}]`;
        const name = fill(t('risk.velocityTestName'), { i: i + 1, n: index + 1 });
        return (
          <div key={i} className="share" role="group" aria-label={name}>
            <div className="grid">
              <Field label={t('risk.measure')} path={`${vat}.measure`}>{(id, aria) => (
                <select id={id} {...aria} value={v.measure} onChange={(e) => update(i, { measure: e.target.value })}>{MEASURES.map((m) => <option key={m} value={m}>{t(MEASURE_LABELS[m]!)}</option>)}</select>)}
              </Field>
              <Field label={t('risk.per')} path={`${vat}.by`}>{(id, aria) => (
                <select id={id} {...aria} value={v.by} onChange={(e) => update(i, { by: e.target.value })}>{BYS.map((b) => <option key={b} value={b}>{t(BY_LABELS[b]!)}</option>)}</select>)}
              </Field>
              <Field label={t('risk.windowMinutes')} hint={t('risk.windowHint')} path={`${vat}.window_minutes`}>{(id, aria) => (
                <input id={id} {...aria} inputMode="numeric" value={v.window} onChange={(e) => update(i, { window: e.target.value })} />)}
              </Field>
              {v.measure === 'amount' ? (
                <>
                  <Field label={t('risk.moreThanAmount')} path={`${vat}.more_than_amount`}>{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={v.moreThanAmount} onChange={(e) => update(i, { moreThanAmount: e.target.value })} />}</Field>
                  <Field label={t('risk.currency')} path={`${vat}.currency`}>{(id, aria) => <input id={id} {...aria} maxLength={3} value={v.currency} onChange={(e) => update(i, { currency: e.target.value })} />}</Field>
                </>
              ) : (
                <Field label={t('risk.moreThan')} path={`${vat}.more_than`}>{(id, aria) => <input id={id} {...aria} inputMode="numeric" value={v.moreThan} onChange={(e) => update(i, { moreThan: e.target.value })} />}</Field>
              )}
            </div>
            <InlineErrors path={vat} exact />
            <button type="button" onClick={() => set({ velocity: draft.velocity.filter((_, j) => j !== i) })}>{fill(t('risk.removeName'), { name })}</button>
          </div>
        );
      })}
      <InlineErrors path={at} exact />
      {draft.velocity.length < 5 && (
        <button type="button" onClick={() => set({ velocity: [...draft.velocity, { measure: 'declines', by: 'card', window: '10', moreThan: '5', moreThanAmount: '', currency: '' }] })}>
          {fill(t('risk.addVelocity'), { n: index + 1 })}
        </button>
      )}
    </fieldset>
  );
}

function Chips({ legend, values, chosen, labels, onChange }: { legend: string; values: readonly string[]; chosen: string[]; labels?: Record<string, string>; onChange: (v: string[]) => void }) {
  return (
    <fieldset className="chips operations">
      <legend>{legend}</legend>
      {values.map((o) => (
        <label key={o} className="check"><input type="checkbox" checked={chosen.includes(o)}
          onChange={(e) => onChange(e.target.checked ? [...chosen, o] : chosen.filter((x) => x !== o))} /> {labels?.[o] ?? o}</label>
      ))}
    </fieldset>
  );
}

function ConditionsEditor({ draft, index, set }: { draft: Draft; index: number; set: (d: Partial<Draft>) => void }) {
  const t = useT();
  const at = `rules.rules[${index}].when`;
  return (
    <fieldset className="switch-group">
      <legend>{t('risk.whenLegend')}</legend>
      <div className="grid">
        {LIST_CONDITIONS.map((c) => (
          <Field key={c.key} label={t(c.label)} hint={c.hint ? t(c.hint) : c.example} path={`${at}.${c.key}`}>{(id, aria) => (
            <input id={id} {...aria} value={draft.lists[c.key] ?? ''} onChange={(e) => set({ lists: { ...draft.lists, [c.key]: e.target.value } })} />)}
          </Field>
        ))}
        <Field label={t('risk.amountFrom')} path={`${at}.amount.min`}>{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={draft.amountMin} onChange={(e) => set({ amountMin: e.target.value })} />}</Field>
        <Field label={t('risk.amountTo')} path={`${at}.amount.max`}>{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={draft.amountMax} onChange={(e) => set({ amountMax: e.target.value })} />}</Field>
        <Field label={t('risk.binRanges')} hint={t('risk.binRangesHint')} path={`${at}.bin_ranges`}>{(id, aria) => <input id={id} {...aria} value={draft.binRanges} onChange={(e) => set({ binRanges: e.target.value })} />}</Field>
        {FLAGS.map((f) => (
          <Field key={f.key} label={t(f.label)} path={`${at}.${f.key}`}>{(id) => (
            <select id={id} value={draft.flags[f.key]} onChange={(e) => set({ flags: { ...draft.flags, [f.key]: e.target.value as Tri } })}>
              <option value="">{t('risk.anyPayment')}</option><option value="true">{t(f.yes)}</option><option value="false">{t(f.no)}</option>
            </select>)}
          </Field>
        ))}
      </div>
      <Chips legend={t('risk.mismatchLegend')} values={MISMATCHES.map((m) => m.key)} labels={Object.fromEntries(MISMATCHES.map((m) => [m.key, t(m.label)]))} chosen={draft.mismatch} onChange={(v) => set({ mismatch: v })} />
      <InlineErrors path={`${at}.country_mismatch`} />
      <Chips legend={t('risk.operationsLegend')} values={OPERATIONS} chosen={draft.operations} onChange={(v) => set({ operations: v })} />
      <Chips legend={t('risk.channelsLegend')} values={CHANNELS} chosen={draft.channels} onChange={(v) => set({ channels: v })} />
      <VelocityEditor draft={draft} index={index} set={set} />
      <Field label={t('risk.otherConditions')} hint={t('risk.otherHint')} path={`${at}.other`}>{(id, aria) => (
        <textarea id={id} {...aria} rows={2} spellCheck={false} value={draft.otherWhen} onChange={(e) => set({ otherWhen: e.target.value })} />)}
      </Field>
      <InlineErrors path={at} exact />
    </fieldset>
  );
}

function RuleCard({ draft, index, count, set, move, remove }: {
  draft: Draft; index: number; count: number; set: (d: Partial<Draft>) => void; move: (by: number) => void; remove: () => void;
}) {
  const t = useT();
  const at = `rules.rules[${index}]`;
  const n = index + 1;
  const title = `${fill(t('risk.ruleN'), { n })}${draft.name ? `: ${draft.name}` : ''}`;
  return (
    <section className="rule" aria-label={title}>
      <div className="rule-head">
        <Field label={fill(t('risk.ruleNName'), { n })} path={`${at}.name`}>{(id, aria) => <input id={id} {...aria} value={draft.name} onChange={(e) => set({ name: e.target.value })} />}</Field>
        <Field label={fill(t('risk.ruleNMode'), { n })} path={`${at}.mode`}>{(id, aria) => (
          <select id={id} {...aria} value={draft.mode} onChange={(e) => set({ mode: e.target.value })}>{MODES.map((m) => <option key={m} value={m}>{t(MODE_LABELS[m]!)}</option>)}</select>)}
        </Field>
        <button type="button" aria-label={fill(t('risk.moveUp'), { n })} disabled={index === 0} onClick={() => move(-1)}>↑</button>
        <button type="button" aria-label={fill(t('risk.moveDown'), { n })} disabled={index === count - 1} onClick={() => move(1)}>↓</button>
        <button type="button" className="danger" onClick={remove}>{fill(t('risk.removeRule'), { n })}</button>
      </div>
      <InlineErrors path={at} exact />
      <ConditionsEditor draft={draft} index={index} set={set} />
      <fieldset className="switch-group">
        <legend>{t('risk.then')}</legend>
        <div className="grid">
          <Field label={fill(t('risk.ruleNOutcome'), { n })} path={`${at}.then.action`}>{(id, aria) => (
            <select id={id} {...aria} value={draft.action} onChange={(e) => set({ action: e.target.value })}>{ACTIONS.map((a) => <option key={a} value={a}>{t(ACTION_LABELS[a]!)}</option>)}</select>)}
          </Field>
          {draft.action === 'score' && (
            <Field label={t('risk.points')} hint={t('risk.oneTo100')} path={`${at}.then.points`}>{(id, aria) => <input id={id} {...aria} inputMode="numeric" value={draft.points} onChange={(e) => set({ points: e.target.value })} />}</Field>
          )}
        </div>
        <InlineErrors path={`${at}.then`} exact />
      </fieldset>
    </section>
  );
}

function Versions({ scope, done }: { scope: string; done: () => void }) {
  const t = useT();
  const can = useCan();
  const versions = useLoad(() => call('get', '/admin/v1/risk/rules/{scope}/versions', { params: { scope } }), `versions-${scope}`);
  return (
    <section className="card" aria-labelledby="versions">
      <h2 id="versions">{t('risk.versions')}</h2>
      <Show loaded={versions} what="the versions">
        {(list) => list.length === 0 ? <Empty>{scope === PLATFORM ? t('risk.neverSavedDefaults') : t('risk.neverSaved')}</Empty> : (
          <Table label={t('risk.versionsTable')}>
            <thead><tr><th scope="col">{t('risk.version')}</th><th scope="col">{t('risk.savedCol')}</th><th scope="col">{t('risk.byCol')}</th><th scope="col">{t('risk.note')}</th><th scope="col">{t('risk.rules')}</th>{can('risk.write') && <th scope="col">{t('risk.restore')}</th>}</tr></thead>
            <tbody>{list.map((v, i) => (
              <tr key={v.version}><td>{v.version}</td><td><Time iso={v.created_at} /></td><td>{v.created_by ?? '—'}</td><td>{v.note ?? '—'}</td><td>{v.rules.rules.length}</td>
                {can('risk.write') && <td>{i === 0 ? t('risk.current') : (
                  <ConfirmButton label={`${fill(t('risk.restoreVersion'), { n: v.version })}…`} confirmLabel={t('risk.restore')} title={fill(t('risk.restoreVersion'), { n: v.version })}
                    action={async () => { await call('post', '/admin/v1/risk/rules/{scope}/versions/{version}/restore', { params: { scope, version: String(v.version) } }); versions.reload(); done(); }}>
                    <p>{t('risk.restoreExplain')}</p>
                  </ConfirmButton>)}</td>}
              </tr>))}
            </tbody>
          </Table>
        )}
      </Show>
    </section>
  );
}

function RulesForm({ scope, current, done }: { scope: string; current: RuleSetView; done: (version: number) => void }) {
  const t = useT();
  const can = useCan();
  const writable = can('risk.write');
  const navigate = useNavigate();
  const [drafts, setDrafts] = useState<Draft[]>(() => (current.rules.rules as unknown as Json[]).map(toDraft));
  const thresholds = current.rules.score_thresholds ?? {};
  const [review, setReview] = useState(thresholds.review === undefined ? '' : String(thresholds.review));
  const [block, setBlock] = useState(thresholds.block === undefined ? '' : String(thresholds.block));
  const [note, setNote] = useState('');
  const ruleSet = (): Json => {
    const t = { ...(review.trim() ? { review: figure(review) } : {}), ...(block.trim() ? { block: figure(block) } : {}) };
    return { rules: drafts.map(toRule), ...(Object.keys(t).length > 0 ? { score_thresholds: t } : {}) };
  };
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    const answer = await call('put', '/admin/v1/risk/rules/{scope}', { params: { scope }, body: { version: current.version, rules: ruleSet(), ...(note.trim() ? { note: note.trim() } : {}) } });
    done(answer.version);
    unsaved.saved();
  });
  const update = (i: number, patch: Partial<Draft>) => { setDrafts(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d))); };
  const move = (i: number, by: number) => { const next = [...drafts]; const [x] = next.splice(i, 1); next.splice(i + by, 0, x!); setDrafts(next); };
  const add = () => setDrafts([...drafts, toDraft({ name: fill(t('risk.ruleN'), { n: drafts.length + 1 }), mode: 'shadow', when: {}, then: { action: 'review' } })]);
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form {...unsaved.form} className="card" aria-labelledby="rule-editor" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="rule-editor">{t('risk.editRules')}</h2>
        <p className="sub">{fill(t('risk.versionN'), { n: current.version })}{current.updated_at ? <>, {t('risk.saved')} <Time iso={current.updated_at} /> {t('risk.by')} {current.updated_by ?? '—'}</> : ` (${t('risk.neverSavedLower')})`}. {t('risk.newRuleShadow')}</p>
        <fieldset disabled={!writable}>
          {drafts.length === 0 && <Empty>{t('risk.noRule')}</Empty>}
          {drafts.map((d, i) => (
            <RuleCard key={d.key} draft={d} index={i} count={drafts.length} set={(p) => update(i, p)} move={(by) => move(i, by)} remove={() => setDrafts(drafts.filter((_, j) => j !== i))} />
          ))}
          {writable && <button type="button" onClick={add}>{t('risk.addRule')}</button>}
          <div className="grid">
            <Field label={t('risk.scoreReviewAt')} hint={t('risk.thresholdHint')} path="rules.score_thresholds.review">{(id, aria) => <input id={id} {...aria} inputMode="numeric" value={review} onChange={(e) => setReview(e.target.value)} />}</Field>
            <Field label={t('risk.scoreBlockAt')} hint={t('risk.thresholdHint')} path="rules.score_thresholds.block">{(id, aria) => <input id={id} {...aria} inputMode="numeric" value={block} onChange={(e) => setBlock(e.target.value)} />}</Field>
            <Field label={t('risk.noteVersion')} path="note">{(id, aria) => <input id={id} {...aria} value={note} onChange={(e) => setNote(e.target.value)} />}</Field>
          </div>
          <InlineErrors path="rules" exact />
          <InlineErrors path="rules.rules" exact />
        </fieldset>
        {error && <ErrorNote error={error} />}
        <div className="actions">
          {writable && <button type="submit" className="primary" disabled={busy}>{t('risk.saveRules')}</button>}
          <button type="button" onClick={() => void navigate(`/risk/backtest${scope === PLATFORM ? '' : `?scope=${encodeURIComponent(scope)}`}`, { state: { rules: ruleSet() } })}>{t('risk.backtestDraft')}</button>
        </div>
      </form>
    </FieldErrors.Provider>
  );
}

export function RiskRules() {
  const t = useT();
  const [scope] = useScope();
  const merchants = useMerchants();
  const [saved, setSaved] = useState<number>();
  const data = useLoad(async () => {
    const [own, platform] = await Promise.all([
      call('get', '/admin/v1/risk/rules/{scope}', { params: { scope } }),
      scope === PLATFORM ? Promise.resolve(undefined) : call('get', '/admin/v1/risk/rules/{scope}', { params: { scope: PLATFORM } }),
    ]);
    return { own, platform };
  }, `rules-${scope}`);
  return (
    <>
      <ScopePicker />
      <Show loaded={data} what="the rules">
        {(d) => (
          <>
            <section aria-labelledby="rule-order">
              <h2 id="rule-order">{fill(t('risk.rulesOf'), { scope: scopeName(scope, merchants, t) })}</h2>
              <p className="sub">{t('risk.orderExplain')}</p>
              {d.platform && <Overview label={t('risk.platformRulesFirst')} rules={d.platform.rules.rules as unknown as Json[]} />}
              <Overview label={d.platform ? t('risk.merchantRules') : t('risk.platformRules')} rules={d.own.rules.rules as unknown as Json[]} offset={d.platform?.rules.rules.length ?? 0} />
            </section>
            {saved !== undefined && saved === d.own.version && <p className="result" role="status">{fill(t('risk.savedAsVersion'), { n: saved })}</p>}
            <RulesForm key={`${scope}-${d.own.version}`} scope={scope} current={d.own} done={(v) => { setSaved(v); data.reload(); }} />
            <Versions key={`v-${scope}-${d.own.version}`} scope={scope} done={() => { setSaved(undefined); data.reload(); }} />
          </>
        )}
      </Show>
    </>
  );
}
