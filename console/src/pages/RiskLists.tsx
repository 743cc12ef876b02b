/**
 * The allow and block lists (issue 26): a scope's entries by card (fingerprint), BIN, e-mail, e-mail domain, IP or
 * CIDR block, country and device, each with its reason and expiry; searched by value or reason (a card number typed
 * whole finds its fingerprint's entry), filtered by list and kind, paged; an entry added (with its D3 problems at
 * their fields) or removed; the CSV export and import; the fraud-dispute feed (fraud chargebacks listing their
 * payment's card, e-mail and device). Every change is audited by the API.
 */
import { useState } from 'react';
import { call, saveFile, send, type Answer } from '../api/client';
import { useCan } from '../session';
import { ConfirmButton, Empty, ErrorNote, Field, FieldErrors, InlineErrors, Show, Table, Time, errorsByField, useLoad, useSubmit } from '../ui';
import { ScopePicker, useScope } from './RiskScope';
import { useUnsavedForm } from '../comfort';
import { fill, useT, type Key, type Translate } from '../i18n';

type Entry = Answer<'/admin/v1/risk/lists/{scope}', 'get'>[number];
type Kind = Entry['kind'];
type ListName = Entry['list'];
const KINDS: { key: Kind; label: Key; hint: (t: Translate) => string }[] = [
  { key: 'card', label: 'risk.kindCard', hint: (t) => t('risk.hintCard') },
  { key: 'bin', label: 'risk.kindBin', hint: (t) => t('risk.hintBin') },
  { key: 'email', label: 'risk.kindEmail', hint: () => 'payer@example.com' },
  { key: 'email_domain', label: 'risk.kindEmailDomain', hint: () => 'mailinator.com' },
  { key: 'ip', label: 'risk.kindIpCidr', hint: (t) => t('risk.hintIp') },
  { key: 'country', label: 'risk.kindCountry', hint: (t) => t('risk.hintCountry') },
  { key: 'device', label: 'risk.device', hint: (t) => t('risk.hintDevice') },
];
const kindLabel = (k: string, t: Translate) => { const kind = KINDS.find((x) => x.key === k); return kind ? t(kind.label) : k; };
const listName = (list: string, t: Translate) => (list === 'block' ? t('risk.listBlock') : list === 'allow' ? t('risk.listAllow') : list);
const PAGE = 50;

/** A datetime-local value (the operator's time) as the API's ISO instant; empty: never expires. */
const isoOf = (local: string): string | null => (local ? new Date(local).toISOString() : null);

function AddEntry({ scope, done }: { scope: string; done: (e: Entry) => void }) {
  const t = useT();
  const [input, setInput] = useState<{ list: ListName; kind: Kind; value: string; reason: string; expires: string }>({ list: 'block', kind: 'email', value: '', reason: '', expires: '' });
  const set = (patch: Partial<typeof input>) => setInput({ ...input, ...patch });
  const { busy, error, submit } = useSubmit(async () => {
    const [entry] = await call('post', '/admin/v1/risk/lists/{scope}', { params: { scope }, body: { entries: [{ list: input.list, kind: input.kind, value: input.value, reason: input.reason, expires_at: isoOf(input.expires) }] } });
    setInput({ ...input, value: '', reason: '', expires: '' });
    if (entry) done(entry);
  });
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form className="card" aria-labelledby="add-entry" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="add-entry">{t('risk.addEntry')}</h2>
        <div className="grid">
          <Field label={t('risk.list')} path="entries[0].list">{(id) => (
            <select id={id} value={input.list} onChange={(e) => set({ list: e.target.value as ListName })}><option value="block">{t('risk.block')}</option><option value="allow">{t('risk.allow')}</option></select>)}
          </Field>
          <Field label={t('risk.kind')} path="entries[0].kind">{(id) => (
            <select id={id} value={input.kind} onChange={(e) => set({ kind: e.target.value as Kind })}>{KINDS.map((k) => <option key={k.key} value={k.key}>{t(k.label)}</option>)}</select>)}
          </Field>
          <Field label={t('risk.value')} hint={KINDS.find((k) => k.key === input.kind)?.hint(t)} path="entries[0].value">{(id, aria) => (
            <input id={id} {...aria} autoComplete="off" value={input.value} onChange={(e) => set({ value: e.target.value })} />)}
          </Field>
          <Field label={t('risk.reason')} path="entries[0].reason">{(id, aria) => <input id={id} {...aria} value={input.reason} onChange={(e) => set({ reason: e.target.value })} />}</Field>
          <Field label={t('risk.expires')} hint={t('risk.emptyNever')} path="entries[0].expires_at">{(id, aria) => <input id={id} {...aria} type="datetime-local" value={input.expires} onChange={(e) => set({ expires: e.target.value })} />}</Field>
        </div>
        {error && <ErrorNote error={error} />}
        <div className="actions"><button type="submit" className="primary" disabled={busy}>{t('risk.addToTheList')}</button></div>
      </form>
    </FieldErrors.Provider>
  );
}

function CsvTools({ scope, done }: { scope: string; done: () => void }) {
  const t = useT();
  const [csv, setCsv] = useState('');
  const [imported, setImported] = useState<number>();
  const exported = useSubmit(async () => {
    const res = await send('get', `/admin/v1/risk/lists/${encodeURIComponent(scope)}/export`, undefined);
    saveFile(await res.blob(), `risk-lists-${scope}.csv`);
  });
  const { busy, error, submit } = useSubmit(async () => {
    setImported(undefined);
    const answer = await call('post', '/admin/v1/risk/lists/{scope}/import', { params: { scope }, body: { csv } });
    setImported(answer.imported);
    setCsv('');
    done();
  });
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form className="card" aria-labelledby="csv" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="csv">CSV</h2>
        <p className="sub">{t('risk.csvExplain')}</p>
        <Field label={t('risk.csvLines')} path="csv">{(id, aria) => <textarea id={id} {...aria} rows={4} spellCheck={false} value={csv} onChange={(e) => setCsv(e.target.value)} />}</Field>
        {error && <ErrorNote error={error} />}
        {exported.error && <ErrorNote error={exported.error} />}
        <div className="actions">
          <button type="submit" disabled={busy || !csv.trim()}>{t('risk.import')}</button>
          <button type="button" disabled={exported.busy} onClick={() => void exported.submit()}>{t('risk.exportAll')}</button>
          {imported !== undefined && <span role="status">{fill(t('risk.imported'), { n: imported })}</span>}
        </div>
      </form>
    </FieldErrors.Provider>
  );
}

type Feed = Answer<'/admin/v1/risk/dispute-feed', 'get'>;
type FeedKind = Feed['kinds'][number];
const FEED_KINDS: { key: FeedKind; label: Key }[] = [{ key: 'card', label: 'risk.kindCardFp' }, { key: 'email', label: 'risk.kindEmail' }, { key: 'device', label: 'risk.device' }];

/** The fraud-dispute feed: whether a fraud chargeback puts its payment's card, e-mail and device on a block list. */
function FraudFeedForm({ feed, writable, done }: { feed: Feed; writable: boolean; done: () => void }) {
  const t = useT();
  const [input, setInput] = useState({ enabled: feed.enabled, kinds: feed.kinds, scope: feed.scope, days: feed.expires_days === null ? '' : String(feed.expires_days) });
  const [saved, setSaved] = useState(false);
  const set = (patch: Partial<typeof input>) => { setSaved(false); setInput({ ...input, ...patch }); };
  const unsaved = useUnsavedForm();
  const { busy, error, submit } = useSubmit(async () => {
    const days = input.days.trim();
    await call('put', '/admin/v1/risk/dispute-feed', { body: { version: feed.version, enabled: input.enabled, kinds: input.kinds, scope: input.scope, expires_days: days === '' ? null : /^\d+$/.test(days) ? Number(days) : (days as unknown as number) } });
    setSaved(true);
    done();
    unsaved.saved();
  });
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form {...unsaved.form} className="card" aria-labelledby="fraud-feed" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="fraud-feed">{t('risk.fraudChargebacks')}</h2>
        <p className="sub">{t('risk.fraudExplain')}</p>
        <p>{feed.version === 0 ? t('risk.neverSavedOff') : <>{fill(t('risk.versionN'), { n: feed.version })}, {t('risk.saved')} <Time iso={feed.updated_at} /> {t('risk.by')} {feed.updated_by ?? '—'}.</>}</p>
        <fieldset disabled={!writable}>
          <label className="check"><input type="checkbox" checked={input.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> {t('risk.fraudEnable')}</label>
          <fieldset className="chips operations">
            <legend>{t('risk.whatToList')}</legend>
            {FEED_KINDS.map((k) => (
              <label key={k.key} className="check"><input type="checkbox" checked={input.kinds.includes(k.key)}
                onChange={(e) => set({ kinds: e.target.checked ? [...input.kinds, k.key] : input.kinds.filter((x) => x !== k.key) })} /> {t(k.label)}</label>
            ))}
          </fieldset>
          <InlineErrors path="kinds" />
          <div className="grid">
            <Field label={t('risk.inBlockListOf')} path="scope">{(id) => (
              <select id={id} value={input.scope} onChange={(e) => set({ scope: e.target.value as Feed['scope'] })}>
                <option value="platform">{t('risk.platformEvery')}</option><option value="merchant">{t('risk.disputedMerchant')}</option>
              </select>)}
            </Field>
            <Field label={t('risk.expireAfterDays')} hint={t('risk.emptyNever')} path="expires_days">{(id, aria) => <input id={id} {...aria} inputMode="numeric" value={input.days} onChange={(e) => set({ days: e.target.value })} />}</Field>
          </div>
        </fieldset>
        {error && <ErrorNote error={error} />}
        {writable && <div className="actions"><button type="submit" disabled={busy}>{t('risk.saveFraud')}</button>{saved && <span role="status">{t('risk.savedDot')}</span>}</div>}
      </form>
    </FieldErrors.Provider>
  );
}

function FraudFeed({ writable }: { writable: boolean }) {
  const feed = useLoad(() => call('get', '/admin/v1/risk/dispute-feed'), 'dispute-feed');
  return <Show loaded={feed} what="the fraud chargeback setting">{(f) => <FraudFeedForm key={f.version} feed={f} writable={writable} done={feed.reload} />}</Show>;
}

interface Filter { list: '' | ListName; kind: '' | Kind; q: string }

function Entries({ scope, filter, tick, writable }: { scope: string; filter: Filter; tick: number; writable: boolean }) {
  const t = useT();
  const [more, setMore] = useState<Entry[]>([]);
  const [moreError, setMoreError] = useState<Error>();
  const query = { ...(filter.list ? { list: filter.list } : {}), ...(filter.kind ? { kind: filter.kind } : {}), ...(filter.q.trim() ? { q: filter.q.trim() } : {}), limit: PAGE };
  const first = useLoad(() => { setMore([]); return call('get', '/admin/v1/risk/lists/{scope}', { params: { scope }, query }); }, `${scope}|${JSON.stringify(filter)}|${tick}`);
  const [removed, setRemoved] = useState<string[]>([]);
  return (
    <Show loaded={first} what="the entries">
      {(page) => {
        const all = [...page, ...more].filter((e) => !removed.includes(e.id));
        const last = (more.length > 0 ? more : page).at(-1);
        const full = (more.length > 0 ? more.length % PAGE === 0 : page.length === PAGE) && last;
        const next = async () => {
          setMoreError(undefined);
          try { setMore([...more, ...await call('get', '/admin/v1/risk/lists/{scope}', { params: { scope }, query: { ...query, after: last!.id } })]); } catch (err) { setMoreError(err as Error); }
        };
        return all.length === 0 ? <Empty>{filter.q || filter.kind || filter.list ? t('risk.noEntryMatches') : t('risk.noEntries')}</Empty> : (
          <>
            <Table label={t('risk.entriesTable')}>
              <thead><tr><th scope="col">{t('risk.list')}</th><th scope="col">{t('risk.kind')}</th><th scope="col">{t('risk.value')}</th><th scope="col">{t('risk.reason')}</th><th scope="col">{t('risk.expires')}</th><th scope="col">{t('risk.added')}</th><th scope="col">{t('risk.byCol')}</th>{writable && <th scope="col">{t('risk.remove')}</th>}</tr></thead>
              <tbody>{all.map((e) => (
                <tr key={e.id}>
                  <td>{e.list}</td><td>{kindLabel(e.kind, t)}</td><td><code>{e.value}</code></td><td>{e.reason}</td>
                  <td>{e.expires_at ? <Time iso={e.expires_at} /> : t('risk.never')}</td><td><Time iso={e.created_at} /></td><td>{e.created_by ?? '—'}</td>
                  {writable && <td><ConfirmButton label={fill(t('risk.removeValue'), { value: e.value })} confirmLabel={t('risk.remove')} title={fill(t('risk.removeTitle'), { value: e.value, list: listName(e.list, t) })} danger
                    action={async () => { await call('delete', '/admin/v1/risk/lists/{scope}/{id}', { params: { scope, id: e.id } }); setRemoved([...removed, e.id]); }}>
                    <p>{fill(e.list === 'block' ? t('risk.noLongerBlocked') : t('risk.noLongerAllowed'), { kind: kindLabel(e.kind, t).toLowerCase() })}</p>
                  </ConfirmButton></td>}
                </tr>))}
              </tbody>
            </Table>
            {moreError && <ErrorNote error={moreError} />}
            {full && <button type="button" onClick={() => void next()}>{t('risk.moreEntries')}</button>}
          </>
        );
      }}
    </Show>
  );
}

export function RiskLists() {
  const t = useT();
  const [scope] = useScope();
  const can = useCan();
  const writable = can('risk.write');
  const [form, setForm] = useState<Filter>({ list: '', kind: '', q: '' });
  const [filter, setFilter] = useState<Filter>(form);
  const [tick, setTick] = useState(0);
  const [added, setAdded] = useState<Entry>();
  const reload = () => setTick((t) => t + 1);
  return (
    <>
      <ScopePicker />
      <form className="filters" role="search" aria-label={t('risk.searchLists')} onSubmit={(e) => { e.preventDefault(); setFilter(form); }}>
        <Field label={t('payments.search')}>{(id) => <input id={id} type="search" placeholder={t('risk.searchPlaceholder')} value={form.q} onChange={(e) => setForm({ ...form, q: e.target.value })} />}</Field>
        <Field label={t('risk.whichList')}>{(id) => (
          <select id={id} value={form.list} onChange={(e) => setForm({ ...form, list: e.target.value as Filter['list'] })}><option value="">{t('risk.both')}</option><option value="block">{t('risk.block')}</option><option value="allow">{t('risk.allow')}</option></select>)}
        </Field>
        <Field label={t('risk.whichKind')}>{(id) => (
          <select id={id} value={form.kind} onChange={(e) => setForm({ ...form, kind: e.target.value as Filter['kind'] })}><option value="">{t('common.any')}</option>{KINDS.map((k) => <option key={k.key} value={k.key}>{t(k.label)}</option>)}</select>)}
        </Field>
        <div className="actions"><button type="submit">{t('payments.search')}</button></div>
      </form>
      {added && <p className="result" role="status">{fill(t('risk.addedTo'), { list: listName(added.list, t), kind: kindLabel(added.kind, t), value: added.value })}</p>}
      <Entries scope={scope} filter={filter} tick={tick} writable={writable} />
      {writable && <AddEntry scope={scope} done={(e) => { setAdded(e); reload(); }} />}
      {writable && <CsvTools scope={scope} done={reload} />}
      <FraudFeed writable={writable} />
      {!writable && <p className="sub">{t('risk.readOnlyLists')}</p>}
    </>
  );
}
