/**
 * The console's test/live switch (issue 25, item 26): one choice in the header, kept in this browser, that the
 * lists and figures apply (payments and their CSV export, merchants, disputes with due soon, ratios and unmatched
 * notices, callbacks, the audit log, the home's figures, charts and unreconciled summary, Needs attention,
 * Reconciliation) as the admin API's `mode` filter: "Test only" shows test keys' (sandbox merchants') work, "Live
 * only" live keys', "Test and live" both.
 */
import { createContext, useContext, useId } from 'react';
import { safeStorage, useT } from './i18n';

export type KeyMode = 'all' | 'test' | 'live';
const STORAGE_KEY = 'portcullis.console.mode';

export function initialMode(): KeyMode {
  const stored = safeStorage()?.getItem(STORAGE_KEY);
  return stored === 'test' || stored === 'live' ? stored : 'all';
}

export function rememberMode(mode: KeyMode): void {
  safeStorage()?.setItem(STORAGE_KEY, mode);
}

export const ModeContext = createContext<{ mode: KeyMode; setMode: (m: KeyMode) => void }>({ mode: 'all', setMode: () => undefined });

/** The `mode` query of the chosen switch position: none for both. */
export function useModeQuery(): { mode?: 'test' | 'live' } {
  const { mode } = useContext(ModeContext);
  return mode === 'all' ? {} : { mode };
}

export function ModeSwitch() {
  const t = useT();
  const { mode, setMode } = useContext(ModeContext);
  const id = useId();
  return (
    <span className="prefs mode-switch">
      <label htmlFor={id}>{t('shell.mode')}</label>
      <select id={id} value={mode} onChange={(e) => setMode(e.target.value as KeyMode)}>
        <option value="all">{t('shell.modeAll')}</option>
        <option value="test">{t('shell.modeTest')}</option>
        <option value="live">{t('shell.modeLive')}</option>
      </select>
    </span>
  );
}
