/**
 * Names, not ids (issue 31 item 4): the merchants' names for the ids lists show, a merchant picker that searches by
 * name, and ids shortened so that two on one screen never look alike, copyable whole. The directory is read once
 * per console load from the admin API (pages of 200, up to 2,000 merchants); without `merchants.read` ids show.
 */
import { useEffect, useId, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { call } from './api/client';
import { useCan } from './session';
import { shortIdOf } from './ids';

export interface MerchantEntry { id: string; name: string }

let directory: Promise<MerchantEntry[]> | undefined;

async function loadDirectory(): Promise<MerchantEntry[]> {
  const all: MerchantEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await call('get', '/admin/v1/merchants', { query: { limit: '200', ...(cursor ? { cursor } : {}) } });
    all.push(...page.merchants.map((m) => ({ id: m.id, name: m.name })));
    cursor = page.next_cursor ?? undefined;
  } while (cursor && all.length < 2000);
  return all.sort((a, b) => a.name.localeCompare(b.name));
}

/** Every merchant (id and name), or undefined while loading or when the role may not read merchants. */
export function useMerchants(): MerchantEntry[] | undefined {
  const can = useCan();
  const allowed = can('merchants.read');
  const [list, setList] = useState<MerchantEntry[]>();
  useEffect(() => {
    if (!allowed) return;
    directory ??= loadDirectory().catch((err: unknown) => { directory = undefined; throw err; });
    let live = true;
    directory.then((l) => live && setList(l), () => undefined);
    return () => { live = false; };
  }, [allowed]);
  return list;
}

/** The merchant's name linking to its page; its short id while names are unknown. */
export function MerchantName({ id, merchants }: { id: string; merchants: MerchantEntry[] | undefined }) {
  const name = merchants?.find((m) => m.id === id)?.name;
  return <Link to={`/merchants/${encodeURIComponent(id)}`} title={id}>{name ?? `${id.slice(0, 8)}…`}</Link>;
}

/** An id shortened so that no two on the screen look alike, with a button that copies the whole id. */
export function ShortId({ id, among = [], to }: { id: string; among?: readonly string[]; to?: string }) {
  const [copied, setCopied] = useState(false);
  const short = shortIdOf(id, among);
  const shown = short.length < id.length ? `${short}…` : short;
  const copy = async () => {
    await navigator.clipboard?.writeText(id).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <span className="short-id">
      {to ? <Link to={to} title={id}><code>{shown}</code></Link> : <code title={id}>{shown}</code>}
      <button type="button" className="copy" onClick={() => void copy()} aria-label={`Copy the whole id ${id}`}>{copied ? 'Copied' : 'Copy'}</button>
    </span>
  );
}

/**
 * A merchant chosen by name: a search box narrows the list below it; the form gets the id under `name`. Without
 * the directory (no `merchants.read`) it is a plain id box.
 */
export function MerchantPicker({ name, defaultValue, label = 'Merchant' }: { name: string; defaultValue?: string; label?: string }) {
  const merchants = useMerchants();
  const id = useId();
  const [filter, setFilter] = useState('');
  const [value, setValue] = useState(defaultValue ?? '');
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const hits = (merchants ?? []).filter((m) => !f || m.name.toLowerCase().includes(f) || m.id.startsWith(f));
    const chosen = merchants?.find((m) => m.id === value);
    return chosen && !hits.includes(chosen) ? [chosen, ...hits] : hits;
  }, [merchants, filter, value]);
  if (!merchants) {
    return <div className="field"><label htmlFor={id}>{label} id</label><input id={id} name={name} defaultValue={defaultValue} /></div>;
  }
  return (
    <div className="field picker">
      <label htmlFor={`${id}-find`}>Find {label.toLowerCase()}</label>
      <input id={`${id}-find`} type="search" value={filter} placeholder="Name or id" onChange={(e) => setFilter(e.target.value)} />
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} value={value} onChange={(e) => setValue(e.target.value)}>
        <option value="">Any</option>
        {shown.map((m) => <option key={m.id} value={m.id}>{m.name} ({shortIdOf(m.id, merchants.map((x) => x.id))})</option>)}
      </select>
    </div>
  );
}
