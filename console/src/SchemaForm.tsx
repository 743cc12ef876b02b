/**
 * A connector's own settings or credentials form, drawn from the JSON schema the connector declares
 * (`GET /admin/v1/connectors`): text, number, switch or choice per property. A connector without a schema takes
 * flat `name = value` lines. Credentials are write-only: the stored values show masked, an empty field keeps them.
 */
import { Field, InlineErrors } from './ui';

interface PropSchema {
  type?: string;
  enum?: unknown[];
  anyOf?: { const?: unknown; enum?: unknown[] }[];
  title?: string;
  description?: string;
}
export interface ObjectSchema {
  properties?: Record<string, PropSchema>;
  required?: string[];
}

const choicesOf = (p: PropSchema): string[] | undefined =>
  (p.enum ?? p.anyOf?.flatMap((a) => (a.const !== undefined ? [a.const] : a.enum ?? [])))?.map(String);

export function linesToObject(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

export function SchemaForm({ legend, schema, values, onChange, secret, masked, path }: {
  legend: string; schema: ObjectSchema | null; values: Record<string, unknown>; onChange: (v: Record<string, unknown>) => void;
  secret?: boolean; masked?: Record<string, string> | null;
  /** The body field these values go in (settings, credentials): the API's errors for it show at each field. */
  path: string;
}) {
  const props = schema?.properties;
  if (!props) {
    return (
      <Field path={path} label={`${legend} (one "name = value" a line)`} hint={masked ? `Stored: ${Object.entries(masked).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}. Lines given replace those names.` : undefined}>
        {(id, aria) => <textarea id={id} {...aria} rows={3} autoComplete="off" spellCheck={false}
          value={Object.entries(values).map(([k, v]) => `${k} = ${String(v)}`).join('\n')}
          onChange={(e) => onChange(linesToObject(e.target.value))} />}
      </Field>
    );
  }
  return (
    <fieldset className="grid">
      <legend>{legend}</legend>
      {Object.entries(props).map(([name, p]) => {
        const choices = choicesOf(p);
        // A required setting says so; a stored credential need not be typed again.
        const required = schema?.required?.includes(name) && !(secret && masked?.[name]);
        const label = `${p.title ?? name}${required ? ' (required)' : ''}`;
        const value = values[name];
        const set = (v: unknown) => onChange({ ...values, [name]: v });
        if (p.type === 'boolean') {
          return <label key={name} className="check"><input type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} /> {label}<InlineErrors path={`${path}.${name}`} /></label>;
        }
        return (
          <Field key={name} path={`${path}.${name}`} label={label} hint={secret && masked?.[name] ? `Stored: ${masked[name]} (leave empty to keep)` : p.description}>
            {(id, aria) => choices
              ? <select id={id} {...aria} value={String(value ?? '')} onChange={(e) => set(e.target.value)}><option value="">—</option>{choices.map((c) => <option key={c} value={c}>{c}</option>)}</select>
              : <input id={id} {...aria} type={secret ? 'password' : p.type === 'number' || p.type === 'integer' ? 'number' : 'text'} autoComplete={secret ? 'new-password' : 'off'}
                  value={value === undefined || value === null ? '' : String(value)}
                  onChange={(e) => set(p.type === 'number' || p.type === 'integer' ? (e.target.value === '' ? undefined : Number(e.target.value)) : e.target.value)} />}
          </Field>
        );
      })}
      <InlineErrors path={path} exact />
    </fieldset>
  );
}
