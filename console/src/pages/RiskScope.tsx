/** The risk screens' scope: the platform's rules and lists (applied to every merchant first) or one merchant's. */
import { useSearchParams } from 'react-router';
import { useMerchants } from '../names';
import { Field } from '../ui';
import { useT, type Key } from '../i18n';

export const PLATFORM = 'platform';

/** The scope in the page's address (`?scope=`), the platform when none. */
export function useScope(): [string, (scope: string) => void] {
  const [search, setSearch] = useSearchParams();
  const scope = search.get('scope') || PLATFORM;
  return [scope, (s) => setSearch(s === PLATFORM ? {} : { scope: s })];
}

/** A merchant's name for a scope (the platform's own words for the platform). */
export function scopeName(scope: string, merchants: { id: string; name: string }[] | undefined, t?: (key: Key) => string): string {
  if (scope === PLATFORM) return t ? t('risk.thePlatform') : 'the platform';
  return merchants?.find((m) => m.id === scope)?.name ?? scope;
}

export function ScopePicker() {
  const t = useT();
  const [scope, setScope] = useScope();
  const merchants = useMerchants();
  return (
    <div className="grid">
      <Field label={t('risk.scopeOf')} hint={t('risk.scopeHint')}>{(id) => merchants ? (
        <select id={id} value={scope} onChange={(e) => setScope(e.target.value)}>
          <option value={PLATFORM}>{t('risk.platformEvery')}</option>
          {merchants.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
        </select>
      ) : <input id={id} value={scope} onChange={(e) => setScope(e.target.value.trim() || PLATFORM)} />}
      </Field>
    </div>
  );
}
