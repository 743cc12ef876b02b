/**
 * A connector's own settings or credentials form, drawn from the JSON schema the connector declares
 * (`GET /admin/v1/connectors`): text, number, switch or choice per property. A connector without a schema takes
 * flat `name = value` lines. Credentials are write-only: the stored values show masked, an empty field keeps them.
 */
import { Field } from './ui';

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

export function SchemaForm({ legend, schema, values, onChange, secret, masked }: {
  legend: string; schema: ObjectSchema | null; values: Record<string, unknown>; onChange: (v: Record<string, unknown>) => void;
  secret?: boolean; masked?: Record<string, string> | null;
}) {
  const props = schema?.properties;
  if (!props) {
    return (
      <Field label={`${legend} (one "name = value" a line)`} hint={masked ? `Stored: ${Object.entries(masked).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}. Lines given replace those names.` : undefined}>
        {(id) => <textarea id={id} rows={3} autoComplete="off" spellCheck={false}
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
        const label = p.title ?? name;
        const value = values[name];
        const set = (v: unknown) => onChange({ ...values, [name]: v });
        if (p.type === 'boolean') {
          return <label key={name} className="check"><input type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} /> {label}</label>;
        }
        return (
          <Field key={name} label={label} hint={secret && masked?.[name] ? `Stored: ${masked[name]} (leave empty to keep)` : p.description}>
            {(id) => choices
              ? <select id={id} value={String(value ?? '')} onChange={(e) => set(e.target.value)}><option value="">—</option>{choices.map((c) => <option key={c} value={c}>{c}</option>)}</select>
              : <input id={id} type={secret ? 'password' : p.type === 'number' || p.type === 'integer' ? 'number' : 'text'} autoComplete={secret ? 'new-password' : 'off'}
                  value={value === undefined || value === null ? '' : String(value)}
                  onChange={(e) => set(p.type === 'number' || p.type === 'integer' ? (e.target.value === '' ? undefined : Number(e.target.value)) : e.target.value)} />}
          </Field>
        );
      })}
    </fieldset>
  );
}
