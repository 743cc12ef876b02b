/**
 * Comfort (issue 31 items 9 and 11): the theme (system, light, dark; kept in this browser), the keyboard shortcuts
 * (/ searches, g then a letter goes to a screen, ? lists them) and the prompt before leaving unsaved settings.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { LANGUAGES, LANGUAGE_NAMES, LanguageContext, safeStorage, useT, type Key, type Language } from './i18n';
import { useContext } from 'react';

export type Theme = 'system' | 'light' | 'dark';
const THEME_KEY = 'portcullis.console.theme';

export function storedTheme(): Theme {
  const v = safeStorage()?.getItem(THEME_KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

/** Sets data-theme on the document: the chosen one, or the system's (followed while it changes). */
export function applyTheme(theme: Theme): () => void {
  const media = window.matchMedia?.('(prefers-color-scheme: dark)');
  const set = () => { document.documentElement.dataset.theme = theme === 'system' ? (media?.matches ? 'dark' : 'light') : theme; };
  set();
  if (theme !== 'system' || !media) return () => undefined;
  media.addEventListener('change', set);
  return () => media.removeEventListener('change', set);
}

/** The header's theme and language pickers. */
export function Preferences() {
  const t = useT();
  const { language, setLanguage } = useContext(LanguageContext);
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const themeId = useId();
  const languageId = useId();
  useEffect(() => {
    safeStorage()?.setItem(THEME_KEY, theme);
    return applyTheme(theme);
  }, [theme]);
  return (
    <span className="prefs">
      <label htmlFor={themeId}>{t('shell.theme')}</label>
      <select id={themeId} value={theme} onChange={(e) => setTheme(e.target.value as Theme)}>
        <option value="system">{t('shell.themeSystem')}</option>
        <option value="light">{t('shell.themeLight')}</option>
        <option value="dark">{t('shell.themeDark')}</option>
      </select>
      <label htmlFor={languageId}>{t('shell.language')}</label>
      <select id={languageId} value={language} onChange={(e) => setLanguage(e.target.value as Language)}>
        {LANGUAGES.map((l) => <option key={l} value={l} lang={l}>{LANGUAGE_NAMES[l]}</option>)}
      </select>
    </span>
  );
}

/** g then this letter goes to the screen. */
const GO: readonly { key: string; to: string; label: Key }[] = [
  { key: 'h', to: '/', label: 'keys.goHome' },
  { key: 'p', to: '/payments', label: 'keys.goPayments' },
  { key: 'm', to: '/merchants', label: 'keys.goMerchants' },
  { key: 'c', to: '/callbacks', label: 'keys.goCallbacks' },
  { key: 'd', to: '/disputes', label: 'keys.goDisputes' },
  { key: 'a', to: '/audit', label: 'keys.goAudit' },
];

const typing = (target: EventTarget | null) => {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
};

/** The first search field of the screen: one marked data-search, else the first text field of a filter form. */
function searchField(): HTMLElement | null {
  return document.querySelector<HTMLElement>('main [data-search], main form.filters input:not([type=hidden]):not([type=checkbox]), main input[type=search]');
}

/** The shortcuts, and the dialog that lists them (?). */
export function Shortcuts() {
  const t = useT();
  const navigate = useNavigate();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    let pendingG = 0;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || dialog.current?.open) return;
      if (e.key === '/') {
        e.preventDefault();
        const field = searchField();
        if (field) field.focus();
        else {
          navigate('/payments');
          // The payments screen renders first, then its search takes the focus.
          setTimeout(() => searchField()?.focus(), 300);
        }
        return;
      }
      if (e.key === '?') {
        e.preventDefault();
        dialog.current?.showModal();
        return;
      }
      if (e.key === 'g') {
        pendingG = Date.now();
        return;
      }
      if (Date.now() - pendingG < 1500) {
        const go = GO.find((g) => g.key === e.key);
        pendingG = 0;
        if (go) {
          e.preventDefault();
          navigate(go.to);
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [navigate]);
  return (
    <>
      <button type="button" className="shortcuts-button" aria-keyshortcuts="?" onClick={() => dialog.current?.showModal()}>{t('shell.shortcuts')}</button>
      <dialog ref={dialog} aria-labelledby={titleId} className="shortcuts">
        <h2 id={titleId}>{t('shell.shortcuts')}</h2>
        <dl>
          <div><dt><kbd>/</kbd></dt><dd>{t('keys.search')}</dd></div>
          {GO.map((g) => <div key={g.key}><dt><kbd>g</kbd> {t('keys.then')} <kbd>{g.key}</kbd></dt><dd>{t(g.label)}</dd></div>)}
          <div><dt><kbd>?</kbd></dt><dd>{t('keys.help')}</dd></div>
        </dl>
        <div className="actions"><button type="button" onClick={() => dialog.current?.close()}>{t('shell.close')}</button></div>
      </dialog>
    </>
  );
}

/**
 * While `dirty`, leaving asks first: closing or reloading the tab (the browser's own prompt), and following a link of
 * the console (a confirm naming what would be lost). Saving, then leaving, asks nothing.
 */
export function useUnsavedPrompt(dirty: boolean): void {
  const t = useT();
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (e: BeforeUnloadEvent) => { e.preventDefault(); e.returnValue = ''; };
    const onClick = (e: MouseEvent) => {
      const link = (e.target as Element | null)?.closest?.('a[href]');
      if (!link || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (!window.confirm(t('unsaved.leave'))) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty, t]);
}

/** What a form's fields hold now: each field's name, kind and value (or checked state, or chosen files), in order. */
function formState(form: HTMLFormElement): string {
  return JSON.stringify(Array.from(form.elements).map((el) => {
    if (el instanceof HTMLInputElement) {
      if (el.type === 'checkbox' || el.type === 'radio') return [el.name, el.type, el.checked];
      if (el.type === 'file') return [el.name, el.type, Array.from(el.files ?? []).map((f) => `${f.name}:${f.size}`)];
      if (el.type === 'submit' || el.type === 'button' || el.type === 'reset') return null;
      return [el.name, el.type, el.value];
    }
    if (el instanceof HTMLSelectElement) return [el.name, 'select', Array.from(el.selectedOptions).map((o) => o.value)];
    if (el instanceof HTMLTextAreaElement) return [el.name, 'textarea', el.value];
    return null;
  }).filter((x) => x !== null));
}

export interface UnsavedForm {
  /** Spread on the <form>. */
  form: {
    onFocus: (e: { currentTarget: HTMLFormElement }) => void; onPointerDown: (e: { currentTarget: HTMLFormElement }) => void;
    onInput: (e: { currentTarget: HTMLFormElement }) => void; onChange: (e: { currentTarget: HTMLFormElement }) => void; onClick: (e: { currentTarget: HTMLFormElement }) => void;
  };
  dirty: boolean;
  /** After a successful save: nothing is unsaved; the next edit is compared with what the form then holds. */
  saved: () => void;
}

/**
 * The unsaved-changes prompt of a settings form, one hook for every form (issue 31 item 9): the form's fields are
 * read when the operator first touches it (focus or pointer), and after each input, change or click (a row added
 * or removed, a box ticked) compared with that; while they differ, leaving asks first (useUnsavedPrompt). Works for
 * controlled and uncontrolled fields alike, since it reads what the page shows. Changing a field back is no change.
 */
export function useUnsavedForm(): UnsavedForm {
  const before = useRef<string | undefined>(undefined);
  const [dirty, setDirty] = useState(false);
  useUnsavedPrompt(dirty);
  const snap = (e: { currentTarget: HTMLFormElement }) => { before.current ??= formState(e.currentTarget); };
  const compareNow = (form: HTMLFormElement) => { if (before.current !== undefined) setDirty(formState(form) !== before.current); };
  // A field's input or change is in the page when its event runs; a row a click adds or removes, after that render.
  const compare = (e: { currentTarget: HTMLFormElement }) => compareNow(e.currentTarget);
  const compareAfterRender = (e: { currentTarget: HTMLFormElement }) => {
    const form = e.currentTarget;
    compareNow(form);
    setTimeout(() => compareNow(form), 0);
  };
  return {
    form: {
      onFocus: snap,
      onPointerDown: snap,
      onInput: compare, onChange: compare, onClick: compareAfterRender,
    },
    dirty,
    saved: () => { before.current = undefined; setDirty(false); },
  };
}
