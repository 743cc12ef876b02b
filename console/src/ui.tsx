/** The pieces every screen shares: loading, error and empty states, money and times, confirmation, tables. */
import { createContext, useCallback, useContext, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError } from './api/client';
import { formatLocal, formatMoney, formatUtc } from './format';
import { fieldLabel } from './errors';
import { apiMessage, apiText } from './api-words';
import { useShared } from './locale';

export interface Loaded<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload(): void;
}

/** Loads on mount and whenever `key` changes; `reload` loads again. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => { live = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function Loading({ what }: { what: string }) {
  const { say } = useShared();
  return <p className="state" role="status" aria-live="polite">{say('ui.loading', { what })}</p>;
}

/** An error's words in the user's language: an API answer's D3 texts through api-words.ts, anything else as it is. */
function errorText(error: Error, language: string): string {
  const body = error instanceof ApiError ? error.body : undefined;
  if (!body) return error.message;
  const fields = (body.errors ?? []).map((e) => apiMessage(e.error_message, language));
  return fields.join(' ') || (body.error_message ? apiMessage(body.error_message, language) : error.message);
}

export function ErrorNote({ error, retry }: { error: Error; retry?: () => void }) {
  const { say, language = 'en' } = useShared();
  const forbidden = error instanceof ApiError && error.status === 403;
  // Trying again helps when the gateway or the network failed, not when the request itself was refused.
  const refused = error instanceof ApiError && error.status >= 400 && error.status < 500 && ![408, 429].includes(error.status);
  return (
    <div className="error" role="alert">
      <p>{forbidden ? say('ui.forbidden') : errorText(error, language)}</p>
      {retry && !refused && <button type="button" onClick={retry}>{say('ui.tryAgain')}</button>}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state empty">{children}</p>;
}

/** Renders loading, error or the content of a load. */
export function Show<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ReactNode }) {
  if (loaded.error) return <ErrorNote error={loaded.error} retry={loaded.reload} />;
  if (loaded.data === undefined) return <Loading what={what} />;
  return <>{children(loaded.data)}</>;
}

export function Money({ amount, currency }: { amount: string; currency: string }) {
  const { locale } = useShared();
  return <span className="money">{formatMoney(amount, currency, locale)}</span>;
}

export function Time({ iso }: { iso: string | null | undefined }) {
  const { locale, say } = useShared();
  if (!iso) return <span aria-label={say('ui.none')}>—</span>;
  return <time dateTime={iso} title={formatUtc(iso)}>{formatLocal(iso, locale)}</time>;
}

/** A table that scrolls sideways on a phone; focusable so the keyboard can scroll it too. */
/**
 * A table that scrolls in its own box on a wide screen and folds each row into a card on a phone: every cell
 * carries its column's heading (data-label), which the phone layout shows beside the value.
 */
export function Table({ label, children }: { label: string; children: ReactNode }) {
  const table = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => labelCells(table.current));
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table ref={table}>{children}</table>
    </div>
  );
}

function labelCells(table: HTMLTableElement | null): void {
  if (!table) return;
  const headings = Array.from(table.tHead?.rows[0]?.cells ?? [], (th) => th.textContent ?? '');
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      if (row.cells.length !== headings.length) continue; // a row spanning the table (details under a row) has no columns
      Array.from(row.cells).forEach((cell, i) => cell.setAttribute('data-label', headings[i] ?? ''));
    }
  }
}

/** A status as a coloured badge (the colour by the code); `label`: the words shown instead of the code. */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span className={`badge badge-${status.replace(/[^a-z0-9]/gi, '').toLowerCase()}`}>{label ?? status}</span>;
}

/**
 * A button that asks before it acts (a native modal dialog: focus is trapped and Escape cancels), then runs
 * `action` and shows its error, if any, in the dialog.
 */
export function ConfirmButton({ label, title, children, confirmLabel, action, danger, disabled }: {
  label: string; title: string; children?: ReactNode; confirmLabel?: string; action: () => Promise<unknown>; danger?: boolean; disabled?: boolean;
}) {
  const { say } = useShared();
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const titleId = useId();
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      dialog.current?.close();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className={danger ? 'danger' : undefined} disabled={disabled} onClick={() => { setError(undefined); dialog.current?.showModal(); }}>{label}</button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <h2 id={titleId}>{title}</h2>
        {children}
        {error && <ErrorNote error={error} />}
        <div className="actions">
          <button type="button" onClick={() => dialog.current?.close()}>{say('ui.cancel')}</button>
          <button type="button" className={danger ? 'danger' : 'primary'} disabled={busy} onClick={() => void run()}>{busy ? say('ui.working') : confirmLabel ?? label}</button>
        </div>
      </dialog>
    </>
  );
}

/** A value shown once (a new password or token), with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const { say } = useShared();
  const [copied, setCopied] = useState(false);
  const id = useId();
  return (
    <div className="shown-once" role="group" aria-labelledby={id}>
      <p id={id}><strong>{label}</strong> — {say('ui.shownOnce')}</p>
      <code data-testid="shown-once">{value}</code>
      <button type="button" onClick={() => void navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false))}>
        {copied ? say('ui.copied') : say('ui.copy')}
      </button>
    </div>
  );
}

/** Runs a form's submit with busy and error state. */
export function useSubmit<T>(fn: () => Promise<T>): { busy: boolean; error: Error | undefined; submit: (e?: { preventDefault(): void }) => Promise<T | undefined> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const submit = async (e?: { preventDefault(): void }) => {
    e?.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      return await fn();
    } catch (err) {
      setError(err as Error);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

/**
 * The API's D3 field errors ("<field.path>: <message>") by path, so a form shows each next to its field. Paths are
 * the API's: `rules[0].then.shares`, `payer_retries.max_attempts`, `settings.baseUrl`.
 */
export function errorsByField(error: Error | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!(error instanceof ApiError)) return out;
  for (const e of error.body?.errors ?? []) {
    const at = e.error_message.indexOf(': ');
    if (at <= 0) continue;
    const path = e.error_message.slice(0, at);
    out.set(path, [...(out.get(path) ?? []), e.error_message.slice(at + 2)]);
  }
  return out;
}

/** The field errors of the form being shown (set by a form around its fields). */
export const FieldErrors = createContext<Map<string, string[]>>(new Map());

/** The messages for `path` and for anything inside it (`rules[0]` gets `rules[0].when.amount` too). */
export function useErrorsAt(path: string | undefined, exact = false): string[] {
  const errors = useContext(FieldErrors);
  const { language = 'en' } = useShared();
  if (!path) return [];
  return [...errors.entries()]
    .filter(([p]) => p === path || (!exact && (p.startsWith(`${path}.`) || p.startsWith(`${path}[`))))
    .flatMap(([p, messages]) => messages.map((text) => {
      const m = apiText(text, language);
      if (p === path) return m;
      // What is inside the field, in words (an item of a list is the list itself: its message alone).
      const inside = fieldLabel(p.slice(path.length).replace(/^\./, ''));
      return inside ? `${inside}: ${m}` : m;
    }));
}

export function InlineErrors({ path, exact }: { path: string; exact?: boolean }) {
  const messages = useErrorsAt(path, exact);
  if (messages.length === 0) return null;
  return <ul className="field-error">{messages.map((m) => <li key={m}>{m}</li>)}</ul>;
}

/** What an input needs to be tied to its errors: aria-invalid and aria-describedby. */
export interface FieldAria { 'aria-invalid'?: true; 'aria-describedby'?: string }

/** A labelled field; with `path`, the API's errors for that path show under it and mark the input invalid. */
export function Field({ label, children, hint, path }: { label: string; children: (id: string, aria: FieldAria) => ReactNode; hint?: string; path?: string }) {
  const id = useId();
  const messages = useErrorsAt(path);
  const aria: FieldAria = messages.length > 0 ? { 'aria-invalid': true, 'aria-describedby': `${id}-error` } : {};
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, aria)}
      {hint && <small>{hint}</small>}
      {messages.length > 0 && <ul className="field-error" id={`${id}-error`}>{messages.map((m) => <li key={m}>{m}</li>)}</ul>}
    </div>
  );
}
