/**
 * A merchant's routing rules (GET|PUT /admin/v1/merchants/{id}/routing): ordered rules, first match wins, each
 * with its conditions and its output (one MID, a fallback list, a volume split). The API validates; its D3 errors
 * show at the rule and field they name. An output kind or condition this console does not know (a newer gateway's)
 * is kept as it is and edited as JSON, never dropped. A dry run asks the API which MID a described payment gets.
 */
import { useState } from 'react';
import { call, type Mid } from '../api/client';
import { bodyEnumOf } from '../queryParams';
import { useCan } from '../session';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, InlineErrors, Show, Table, errorsByField, useLoad, useSubmit } from '../ui';
import { useUnsavedPrompt } from '../comfort';
import { fill, useT, type Key, type Translate } from '../i18n';

type Json = Record<string, unknown>;

/** Conditions typed as comma-separated lists, in the order the form shows them. */
const LIST_CONDITIONS: { key: string; label: Key; hint: Key | { example: string }; upper?: boolean }[] = [
  { key: 'currencies', label: 'pay.ro.currencies', hint: 'pay.ro.currenciesHint', upper: true },
  { key: 'brands', label: 'pay.ro.brands', hint: { example: 'visa, mastercard, …' } },
  { key: 'card_countries', label: 'pay.ro.cardCountries', hint: 'pay.ro.cardCountriesHint', upper: true },
  { key: 'billing_countries', label: 'pay.ro.billingCountries', hint: 'pay.ro.billingCountriesHint', upper: true },
  { key: 'methods', label: 'pay.ro.methods', hint: { example: 'card, …' } },
];
const ROUTE = 'PUT /admin/v1/merchants/{id}/routing';
const or = (values: string[], fallback: string[]) => (values.length > 0 ? values : fallback);
/** What the API takes, read from its OpenAPI description at build time. */
const OPERATIONS = or(bodyEnumOf(ROUTE, 'rules.when.operations'), ['sale', 'auth', 'payout']);
const API_KINDS = or(bodyEnumOf(ROUTE, 'rules.then.kind'), ['mid', 'fallback', 'split']);
const KNOWN_CONDITIONS = new Set([...LIST_CONDITIONS.map((c) => c.key), 'amount', 'bin_ranges', 'operations', 'recurring', 'custom_data']);
/** The output kinds edited field by field; any other (one the API adds) is edited as JSON. */
const KNOWN_KINDS = ['mid', 'fallback', 'split', 'success_rate'] as const;
const KIND_LABELS: Record<string, Key> = { mid: 'pay.ro.kindMid', fallback: 'pay.ro.kindFallback', split: 'pay.ro.kindSplit', success_rate: 'pay.ro.kindSuccessRate' };

/** A rule as the form holds it: lists as typed text, unknown conditions and outputs as they came. */
interface Draft {
  key: number;
  name: string;
  lists: Record<string, string>;
  amountMin: string;
  amountMax: string;
  binRanges: string;
  operations: string[];
  recurring: '' | 'true' | 'false';
  customData: string;
  otherWhen: string;
  then: Json;
  /** The JSON text of an output of a kind this console does not know. */
  thenText: string;
}

let nextKey = 0;
const split = (text: string, upper?: boolean) => text.split(/[\s,]+/).filter(Boolean).map((x) => (upper ? x.toUpperCase() : x));
const isKnownKind = (kind: unknown) => (KNOWN_KINDS as readonly unknown[]).includes(kind);

function toDraft(rule: Json): Draft {
  const when = (rule.when ?? {}) as Json;
  const amount = (when.amount ?? {}) as { min?: string; max?: string };
  const other = Object.fromEntries(Object.entries(when).filter(([k]) => !KNOWN_CONDITIONS.has(k)));
  const then = (rule.then ?? { kind: 'mid', mid_id: '' }) as Json;
  return {
    key: nextKey++,
    name: String(rule.name ?? ''),
    lists: Object.fromEntries(LIST_CONDITIONS.map((c) => [c.key, ((when[c.key] as string[] | undefined) ?? []).join(', ')])),
    amountMin: amount.min ?? '',
    amountMax: amount.max ?? '',
    binRanges: ((when.bin_ranges as { from: string; to: string }[] | undefined) ?? []).map((r) => `${r.from}-${r.to}`).join(', '),
    operations: (when.operations as string[] | undefined) ?? [],
    recurring: when.recurring === undefined ? '' : when.recurring ? 'true' : 'false',
    customData: Object.entries((when.custom_data ?? {}) as Record<string, string | null>).map(([k, v]) => (v === null ? k : `${k} = ${v}`)).join('\n'),
    otherWhen: Object.keys(other).length > 0 ? JSON.stringify(other, null, 2) : '',
    then,
    thenText: isKnownKind(then.kind) ? '' : JSON.stringify(then, null, 2),
  };
}

/** Unreadable JSON is sent as a string, so the API's D3 error names the field. */
const parseJson = (text: string): unknown => {
  try { return JSON.parse(text); } catch { return text; }
};

/** Success-rate options typed as text go as numbers (text that is not one goes as it is, for the API to refuse). */
function numbered(then: Json): Json {
  if (then.kind !== 'success_rate') return then;
  const out = { ...then };
  for (const o of SUCCESS_RATE_OPTIONS) {
    const v = out[o.key];
    if (typeof v === 'string') out[o.key] = v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  }
  return out;
}

function toRule(d: Draft): Json {
  const when: Json = {};
  for (const c of LIST_CONDITIONS) if (d.lists[c.key]?.trim()) when[c.key] = split(d.lists[c.key]!, c.upper);
  if (d.amountMin || d.amountMax) when.amount = { ...(d.amountMin ? { min: d.amountMin } : {}), ...(d.amountMax ? { max: d.amountMax } : {}) };
  if (d.binRanges.trim()) when.bin_ranges = split(d.binRanges).map((r) => { const [from = '', to = from] = r.split('-'); return { from, to }; });
  if (d.operations.length > 0) when.operations = d.operations;
  if (d.recurring) when.recurring = d.recurring === 'true';
  if (d.customData.trim()) {
    when.custom_data = Object.fromEntries(d.customData.split('\n').filter((l) => l.trim()).map((l) => {
      const eq = l.indexOf('=');
      return eq < 0 ? [l.trim(), null] : [l.slice(0, eq).trim(), l.slice(eq + 1).trim()];
    }));
  }
  if (d.otherWhen.trim()) Object.assign(when, parseJson(d.otherWhen));
  return { name: d.name, when, then: isKnownKind(d.then.kind) ? numbered(d.then) : parseJson(d.thenText) };
}

function defaultOutput(kind: string, mids: Mid[]): Json {
  const ids = mids.map((m) => m.id);
  if (!isKnownKind(kind)) return { kind, mid_ids: ids }; // a starting point for a kind edited as JSON
  if (kind === 'mid') return { kind, mid_id: ids[0] ?? '' };
  if (kind === 'fallback') return { kind, mid_ids: ids.slice(0, 2) };
  if (kind === 'success_rate') return { kind, mid_ids: ids };
  return { kind: 'split', shares: [{ weight: 50, mid_ids: ids.slice(0, 1) }, { weight: 50, mid_ids: ids.slice(1, 2).length ? ids.slice(1, 2) : ids.slice(0, 1) }] };
}

const nameOf = (mids: Mid[], id: string) => mids.find((m) => m.id === id)?.name ?? id;

/** An ordered list of MIDs: the first eligible carries the payment, a retryable decline cascades down. */
function MidList({ label, ids, mids, onChange }: { label: string; ids: string[]; mids: Mid[]; onChange: (ids: string[]) => void }) {
  const t = useT();
  const move = (i: number, by: number) => { const next = [...ids]; const [x] = next.splice(i, 1); next.splice(i + by, 0, x!); onChange(next); };
  const free = mids.filter((m) => !ids.includes(m.id));
  return (
    <div>
      <ol className="mid-list" aria-label={label}>
        {ids.map((id, i) => (
          <li key={id}><span>{nameOf(mids, id)}
            <button type="button" aria-label={fill(t('pay.ro.moveUpIn'), { name: nameOf(mids, id), list: label })} disabled={i === 0} onClick={() => move(i, -1)}>↑</button>
            <button type="button" aria-label={fill(t('pay.ro.moveDownIn'), { name: nameOf(mids, id), list: label })} disabled={i === ids.length - 1} onClick={() => move(i, 1)}>↓</button>
            <button type="button" aria-label={fill(t('pay.ro.removeFrom'), { name: nameOf(mids, id), list: label })} onClick={() => onChange(ids.filter((x) => x !== id))}>✕</button>
          </span></li>
        ))}
      </ol>
      {free.length > 0 && (
        <Field label={fill(t('pay.ro.addMidTo'), { list: label })}>{(id) => (
          <select id={id} value="" onChange={(e) => e.target.value && onChange([...ids, e.target.value])}>
            <option value="">{t('pay.ro.choose')}</option>{free.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
          </select>)}
        </Field>
      )}
    </div>
  );
}

/** The success-rate options: a number each, empty for the API's default. */
const SUCCESS_RATE_OPTIONS: { key: string; label: Key; hint: Key }[] = [
  { key: 'exploration_percent', label: 'pay.ro.exploration', hint: 'pay.ro.explorationHint' },
  { key: 'min_outcomes', label: 'pay.ro.minOutcomes', hint: 'pay.ro.apiDefault' },
  { key: 'default_score', label: 'pay.ro.defaultScore', hint: 'pay.ro.apiDefault' },
];

function SuccessRate({ then, index, mids, set }: { then: Json; index: number; mids: Mid[]; set: (then: Json) => void }) {
  const t = useT();
  const at = `rules[${index}].then`;
  const option = (key: string, text: string) => {
    const next = { ...then };
    if (text === '') delete next[key]; else next[key] = text; // typed text; a number once saved (toRule)
    set(next);
  };
  return (
    <>
      <p className="sub">{t('pay.ro.srExplain')}</p>
      <MidList label={fill(t('pay.ro.srList'), { n: index + 1 })} ids={(then.mid_ids ?? []) as string[]} mids={mids} onChange={(ids) => set({ ...then, mid_ids: ids })} />
      <div className="grid">
        {SUCCESS_RATE_OPTIONS.map((o) => (
          <Field key={o.key} label={t(o.label)} hint={t(o.hint)} path={`${at}.${o.key}`}>{(id, aria) => (
            <input id={id} {...aria} inputMode="decimal" value={then[o.key] === undefined ? '' : String(then[o.key])} onChange={(e) => option(o.key, e.target.value)} />)}
          </Field>
        ))}
      </div>
    </>
  );
}

function OutputEditor({ draft, index, mids, set }: { draft: Draft; index: number; mids: Mid[]; set: (d: Partial<Draft>) => void }) {
  const t = useT();
  const then = draft.then;
  const kind = String(then.kind ?? '');
  const at = `rules[${index}].then`;
  const kinds = [...new Set([...API_KINDS, kind])];
  const shares = (then.shares ?? []) as { weight: number; mid_ids: string[] }[];
  const setShares = (next: typeof shares) => set({ then: { ...then, shares: next } });
  return (
    <fieldset className="switch-group">
      <legend>{t('pay.ro.then')}</legend>
      <Field label={t('pay.ro.sendTo')} path={`${at}.kind`}>{(id) => (
        <select id={id} value={kind} onChange={(e) => {
          const k = e.target.value;
          const then = defaultOutput(k, mids);
          set({ then, thenText: isKnownKind(k) ? '' : JSON.stringify(then, null, 2) });
        }}>
          {kinds.map((k) => <option key={k} value={k}>{isKnownKind(k) ? (KIND_LABELS[k] ? t(KIND_LABELS[k]) : k) : fill(t('pay.ro.asJson'), { kind: KIND_LABELS[k] ? t(KIND_LABELS[k]) : k })}</option>)}
        </select>)}
      </Field>
      {kind === 'mid' && (
        <Field label="MID" path={`${at}.mid_id`}>{(id, aria) => (
          <select id={id} {...aria} value={String(then.mid_id ?? '')} onChange={(e) => set({ then: { kind, mid_id: e.target.value } })}>
            {mids.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
          </select>)}
        </Field>
      )}
      {kind === 'fallback' && <MidList label={fill(t('pay.ro.fallbackList'), { n: index + 1 })} ids={(then.mid_ids ?? []) as string[]} mids={mids} onChange={(ids) => set({ then: { kind, mid_ids: ids } })} />}
      {kind === 'split' && (
        <>
          {shares.map((s, i) => (
            <div key={i} className="share">
              <Field label={fill(t('pay.ro.shareWeight'), { i: i + 1 })} path={`${at}.shares[${i}].weight`}>{(id, aria) => (
                <input id={id} {...aria} type="number" min={1} max={100} value={s.weight} onChange={(e) => setShares(shares.map((x, j) => (j === i ? { ...x, weight: Number(e.target.value) } : x)))} />)}
              </Field>
              <MidList label={fill(t('pay.ro.shareOf'), { i: i + 1, n: index + 1 })} ids={s.mid_ids} mids={mids} onChange={(ids) => setShares(shares.map((x, j) => (j === i ? { ...x, mid_ids: ids } : x)))} />
              {shares.length > 2 && <button type="button" onClick={() => setShares(shares.filter((_, j) => j !== i))}>{fill(t('pay.ro.removeShare'), { i: i + 1 })}</button>}
            </div>
          ))}
          <InlineErrors path={`${at}.shares`} exact />
          <button type="button" onClick={() => setShares([...shares, { weight: 0, mid_ids: mids.slice(0, 1).map((m) => m.id) }])}>{t('pay.ro.addShare')}</button>
        </>
      )}
      {kind === 'success_rate' && <SuccessRate then={then} index={index} mids={mids} set={(next) => set({ then: next })} />}
      {!isKnownKind(kind) && (
        <Field label={fill(t('pay.ro.outputJson'), { kind })} hint={t('pay.ro.outputJsonHint')} path={at}>{(id, aria) => (
          <textarea id={id} {...aria} rows={5} spellCheck={false} value={draft.thenText} onChange={(e) => set({ thenText: e.target.value })} />)}
        </Field>
      )}
      {isKnownKind(kind) && <InlineErrors path={at} exact />}
    </fieldset>
  );
}

function ConditionsEditor({ draft, index, set }: { draft: Draft; index: number; set: (d: Partial<Draft>) => void }) {
  const t = useT();
  const at = `rules[${index}].when`;
  return (
    <fieldset className="switch-group">
      <legend>{t('pay.ro.when')}</legend>
      <div className="grid">
        {LIST_CONDITIONS.map((c) => (
          <Field key={c.key} label={t(c.label)} hint={typeof c.hint === 'string' ? t(c.hint) : c.hint.example} path={`${at}.${c.key}`}>{(id, aria) => (
            <input id={id} {...aria} value={draft.lists[c.key] ?? ''} onChange={(e) => set({ lists: { ...draft.lists, [c.key]: e.target.value } })} />)}
          </Field>
        ))}
        <Field label={t('pay.ro.amountFrom')} path={`${at}.amount.min`}>{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={draft.amountMin} onChange={(e) => set({ amountMin: e.target.value })} />}</Field>
        <Field label={t('pay.ro.amountTo')} path={`${at}.amount.max`}>{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={draft.amountMax} onChange={(e) => set({ amountMax: e.target.value })} />}</Field>
        <Field label={t('pay.ro.binRanges')} hint={t('pay.ro.binRangesHint')} path={`${at}.bin_ranges`}>{(id, aria) => <input id={id} {...aria} value={draft.binRanges} onChange={(e) => set({ binRanges: e.target.value })} />}</Field>
        <Field label={t('pay.ro.recurring')} path={`${at}.recurring`}>{(id) => (
          <select id={id} value={draft.recurring} onChange={(e) => set({ recurring: e.target.value as Draft['recurring'] })}>
            <option value="">{t('pay.ro.anyPayment')}</option><option value="true">{t('pay.ro.recurringOnly')}</option><option value="false">{t('pay.ro.notRecurring')}</option>
          </select>)}
        </Field>
        <Field label={t('pay.ro.customData')} hint={t('pay.ro.customDataHint')} path={`${at}.custom_data`}>{(id, aria) => <textarea id={id} {...aria} rows={2} value={draft.customData} onChange={(e) => set({ customData: e.target.value })} />}</Field>
      </div>
      <fieldset className="chips operations" aria-label={fill(t('pay.ro.operationsOf'), { n: index + 1 })}>
        <legend>{t('pay.ro.operations')}</legend>
        {OPERATIONS.map((o) => (
          <label key={o} className="check"><input type="checkbox" checked={draft.operations.includes(o)}
            onChange={(e) => set({ operations: e.target.checked ? [...draft.operations, o] : draft.operations.filter((x) => x !== o) })} /> {o}</label>
        ))}
      </fieldset>
      {draft.otherWhen && (
        <Field label={t('pay.ro.otherConditions')} hint={t('pay.ro.otherConditionsHint')}>{(id) => (
          <textarea id={id} rows={3} spellCheck={false} value={draft.otherWhen} onChange={(e) => set({ otherWhen: e.target.value })} />)}
        </Field>
      )}
      <InlineErrors path={at} exact />
    </fieldset>
  );
}

function RuleCard({ draft, index, count, mids, set, move, remove }: {
  draft: Draft; index: number; count: number; mids: Mid[]; set: (d: Partial<Draft>) => void; move: (by: number) => void; remove: () => void;
}) {
  const t = useT();
  const title = draft.name ? fill(t('pay.ro.ruleNamed'), { n: index + 1, name: draft.name }) : fill(t('pay.ro.rule'), { n: index + 1 });
  return (
    <section className="rule" aria-label={title}>
      <div className="rule-head">
        <Field label={fill(t('pay.ro.ruleName'), { n: index + 1 })} path={`rules[${index}].name`}>{(id, aria) => <input id={id} {...aria} value={draft.name} onChange={(e) => set({ name: e.target.value })} />}</Field>
        <button type="button" aria-label={fill(t('pay.ro.moveRuleUp'), { n: index + 1 })} disabled={index === 0} onClick={() => move(-1)}>↑</button>
        <button type="button" aria-label={fill(t('pay.ro.moveRuleDown'), { n: index + 1 })} disabled={index === count - 1} onClick={() => move(1)}>↓</button>
        <ConfirmButton label={fill(t('pay.ro.removeRule'), { n: index + 1 })} danger title={fill(t('pay.ro.removeTitle'), { rule: title })} confirmLabel={t('pay.ro.remove')} action={async () => remove()}>
          <p>{t('pay.ro.removeExplain')}</p>
        </ConfirmButton>
      </div>
      {/* Issue 31 item 8: a rule without any condition is not "empty": it takes every payment, and no rule after it is reached. */}
      {Object.keys(toRule(draft).when as Json).length === 0 && (
        <p className="warn rule-note" role="note">{index < count - 1 ? t('pay.ro.noConditionAfter') : t('pay.ro.noCondition')}</p>
      )}
      <InlineErrors path={`rules[${index}]`} exact />
      <ConditionsEditor draft={draft} index={index} set={set} />
      <OutputEditor draft={draft} index={index} mids={mids} set={set} />
    </section>
  );
}

type Config = { rules: Json[]; max_extra_attempts: number } & Json;

/** What saving did, in words: a rule without conditions is said, not hidden behind "Saved." (issue 31 item 8). */
function savedText(t: Translate, drafts: Draft[]): string {
  if (drafts.length === 0) return t('pay.ro.savedNoRule');
  const all = drafts.findIndex((d) => Object.keys(toRule(d).when as Json).length === 0);
  return all < 0 ? t('pay.ro.saved') : fill(t('pay.ro.savedAll'), { n: all + 1 });
}

function RulesForm({ merchantId, config, mids, done }: { merchantId: string; config: Config; mids: Mid[]; done: () => void }) {
  const t = useT();
  const can = useCan();
  const writable = can('mids.write');
  const [drafts, setDrafts] = useState<Draft[]>(() => config.rules.map(toDraft));
  const [extra, setExtra] = useState(String(config.max_extra_attempts));
  const [saved, setSaved] = useState(false);
  // Issue 31 item 9: leaving with rules not saved asks first.
  const dirty = JSON.stringify(drafts.map(toRule)) !== JSON.stringify(config.rules.map((r) => toRule(toDraft(r)))) || extra !== String(config.max_extra_attempts);
  useUnsavedPrompt(dirty && !saved);
  const { busy, error, submit } = useSubmit(async () => {
    // Settings beside the rules that this console does not show (a newer gateway's) go back as they came.
    const body = { ...config, rules: drafts.map(toRule), max_extra_attempts: Number(extra) };
    // Over the rules this page read: another operator's save since is refused (412), not overwritten.
    await call('put', '/admin/v1/merchants/{id}/routing', { params: { id: merchantId }, body: body as never, conditional: true });
    setSaved(true);
    done();
  });
  const update = (i: number, patch: Partial<Draft>) => { setSaved(false); setDrafts(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d))); };
  const move = (i: number, by: number) => { setSaved(false); const next = [...drafts]; const [x] = next.splice(i, 1); next.splice(i + by, 0, x!); setDrafts(next); };
  const add = () => { setSaved(false); setDrafts([...drafts, toDraft({ name: fill(t('pay.ro.rule'), { n: drafts.length + 1 }), when: {}, then: defaultOutput('mid', mids) })]); };
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form className="card" aria-labelledby="rules" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="rules">{t('pay.ro.title')}</h2>
        <p className="sub">{t('pay.ro.explain')}</p>
        <fieldset disabled={!writable}>
          {drafts.length === 0 && <Empty>{t('pay.ro.empty')}</Empty>}
          {drafts.map((d, i) => (
            <RuleCard key={d.key} draft={d} index={i} count={drafts.length} mids={mids} set={(p) => update(i, p)} move={(by) => move(i, by)} remove={() => { setSaved(false); setDrafts(drafts.filter((_, j) => j !== i)); }} />
          ))}
          {writable && <button type="button" onClick={add} disabled={mids.length === 0}>{t('pay.ro.addRule')}</button>}
          <div className="grid">
            <Field label={t('pay.ro.extra')} hint={t('pay.ro.extraHint')} path="max_extra_attempts">{(id, aria) => (
              <input id={id} {...aria} type="number" min={0} value={extra} onChange={(e) => setExtra(e.target.value)} />)}
            </Field>
          </div>
        </fieldset>
        {error && <ErrorNote error={error} />}
        {writable && <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('pay.ro.save')}</button>{saved && <span role="status">{savedText(t, drafts)}</span>}</div>}
      </form>
    </FieldErrors.Provider>
  );
}

/** Facts a newer API adds to a dry run (card brand and country, success-rate scores), shown when present. */
function DryRunExtras({ result, mids }: { result: Json; mids: Mid[] }) {
  const t = useT();
  const card = [result.brand, result.card_country].filter((x) => typeof x === 'string').join(', ');
  const scores = Array.isArray(result.scores) ? (result.scores as { mid_id: string; score: number; outcomes: number; observed: boolean }[]) : [];
  return (
    <>
      {card && <p>{fill(t('pay.ro.card'), { card })}</p>}
      {typeof result.explored === 'boolean' && <p>{result.explored ? t('pay.ro.drawExplored') : t('pay.ro.byScore')}</p>}
      {scores.length > 0 && (
        <Table label={t('pay.ro.scores')}>
          <thead><tr><th scope="col">MID</th><th scope="col">{t('pay.col.score')}</th><th scope="col">{t('pay.col.outcomes')}</th></tr></thead>
          <tbody>{scores.map((x) => <tr key={x.mid_id}><td>{nameOf(mids, x.mid_id)}</td><td>{(x.score * 100).toFixed(1)} %{x.observed ? '' : ` ${t('pay.rt.default')}`}</td><td>{x.outcomes.toFixed(1)}</td></tr>)}</tbody>
        </Table>
      )}
    </>
  );
}

function DryRun({ merchantId, mids }: { merchantId: string; mids: Mid[] }) {
  const t = useT();
  const [input, setInput] = useState({ operation: 'sale', amount: '25.00', currency: 'EUR', bin: '', billing_country: '', recurring: false });
  const [result, setResult] = useState<Awaited<ReturnType<typeof call<'/admin/v1/merchants/{id}/routing/dry-run', 'post'>>>>();
  const { busy, error, submit } = useSubmit(async () => {
    setResult(undefined);
    setResult(await call('post', '/admin/v1/merchants/{id}/routing/dry-run', { params: { id: merchantId }, body: {
      operation: input.operation as 'sale', amount: input.amount, currency: input.currency.toUpperCase(), recurring: input.recurring,
      ...(input.bin ? { bin: input.bin } : {}), ...(input.billing_country ? { billing_country: input.billing_country.toUpperCase() } : {}),
    } }));
  });
  const set = (patch: Partial<typeof input>) => setInput({ ...input, ...patch });
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form className="card" aria-labelledby="dry-run" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="dry-run">{t('pay.ro.dryRun')}</h2>
        <p className="sub">{t('pay.ro.dryRunExplain')}</p>
        <div className="grid">
          <Field label={t('pay.ro.operation')} path="operation">{(id) => <select id={id} value={input.operation} onChange={(e) => set({ operation: e.target.value })}>{OPERATIONS.map((o) => <option key={o}>{o}</option>)}</select>}</Field>
          <Field label={t('pay.col.amount')} path="amount">{(id, aria) => <input id={id} {...aria} inputMode="decimal" value={input.amount} onChange={(e) => set({ amount: e.target.value })} />}</Field>
          <Field label={t('pay.ro.currency')} path="currency">{(id, aria) => <input id={id} {...aria} maxLength={3} value={input.currency} onChange={(e) => set({ currency: e.target.value })} />}</Field>
          <Field label={t('pay.ro.cardBin')} hint={t('pay.ro.cardBinHint')} path="bin">{(id, aria) => <input id={id} {...aria} inputMode="numeric" value={input.bin} onChange={(e) => set({ bin: e.target.value })} />}</Field>
          <Field label={t('pay.ro.billingCountry')} path="billing_country">{(id, aria) => <input id={id} {...aria} maxLength={2} value={input.billing_country} onChange={(e) => set({ billing_country: e.target.value })} />}</Field>
          <label className="check"><input type="checkbox" checked={input.recurring} onChange={(e) => set({ recurring: e.target.checked })} /> {t('pay.ro.recurring')}</label>
        </div>
        {error && <ErrorNote error={error} />}
        <div className="actions"><button type="submit" disabled={busy}>{t('pay.ro.run')}</button></div>
        {result && (
          <div className="result" role="status" aria-label={t('pay.ro.result')}>
            <p><strong>{nameOf(mids, result.mid_id)}</strong> — {result.matched_rule ? fill(t('pay.rt.ruleN'), { n: result.matched_rule.index + 1, name: result.matched_rule.name }) : String(result.rule).replace(/_/g, ' ')}
              {result.share !== null && `, ${fill(t('pay.rt.share'), { n: result.share + 1 })}`}.</p>
            <p>{t('pay.rt.order')}: {result.candidates.map((c) => nameOf(mids, c)).join(' → ') || '—'}</p>
            <DryRunExtras result={result as unknown as Json} mids={mids} />
            {result.skipped_rules.length > 0 && <p>{fill(t('pay.ro.skipped'), { rules: result.skipped_rules.map((r) => fill(t('pay.rt.ruleN'), { n: r.index + 1, name: r.name })).join(', ') })}</p>}
            <Table label={t('pay.ro.considered')}>
              <thead><tr><th scope="col">MID</th><th scope="col">{t('pay.col.priority')}</th><th scope="col">{t('pay.col.eligible')}</th><th scope="col">{t('pay.col.whyNot')}</th></tr></thead>
              <tbody>{result.considered.map((c) => <tr key={c.mid_id}><td>{nameOf(mids, c.mid_id)}</td><td>{c.priority}</td><td>{c.eligible ? t('pay.yes') : t('pay.no')}</td><td>{c.reason ?? '—'}</td></tr>)}</tbody>
            </Table>
          </div>
        )}
      </form>
    </FieldErrors.Provider>
  );
}

export function Routing({ merchantId }: { merchantId: string }) {
  const t = useT();
  const data = useLoad(async () => {
    const [routing, mids] = await Promise.all([
      call('get', '/admin/v1/merchants/{id}/routing', { params: { id: merchantId } }),
      call('get', '/admin/v1/merchants/{id}/mids', { params: { id: merchantId } }),
    ]);
    return { routing: routing as unknown as Config, mids: [...mids.mids].sort((a, b) => b.priority - a.priority) };
  }, merchantId);
  return (
    <Show loaded={data} what="routing rules">
      {(d) => (
        <>
          {d.mids.length === 0 && <Empty>{t('pay.ro.noMid')}</Empty>}
          <RulesForm merchantId={merchantId} config={d.routing} mids={d.mids} done={data.reload} />
          <DryRun merchantId={merchantId} mids={d.mids} />
        </>
      )}
    </Show>
  );
}
