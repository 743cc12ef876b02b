/**
 * Tiny HTML helpers for the server-rendered pages. Every interpolated value goes through `escapeHtml`
 * (text and attribute values alike); the `html` tagged template does that by default and only trusts
 * values wrapped in `raw()` (the output of other templates).
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes a value for HTML text and for quoted attribute values (every attribute here is quoted). */
export function escapeHtml(value: unknown): string {
  if (value === undefined || value === null) return '';
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** Markup that is already safe (built by these helpers). */
export class Raw {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

export function raw(html: string): Raw {
  return new Raw(html);
}

type Interpolation = Raw | string | number | boolean | undefined | null | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof Raw) return value.html;
  if (Array.isArray(value)) return value.map((v: Interpolation) => render(v)).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(value);
}

/** Tagged template: interpolations are escaped unless they are `Raw`; arrays are joined; false/null/undefined vanish. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Raw {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + (strings[i + 1] ?? '');
  }
  return new Raw(out);
}

/**
 * Attribute list from an object: `true` renders the bare attribute, `false`/undefined omits it, everything
 * else is escaped. Names are fixed by our code, never by input, but are checked anyway.
 */
export function attrs(list: Record<string, string | number | boolean | undefined | null>): Raw {
  let out = '';
  for (const [name, value] of Object.entries(list)) {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`bad attribute name ${name}`);
    if (value === undefined || value === null || value === false) continue;
    out += value === true ? ` ${name}` : ` ${name}="${escapeHtml(value)}"`;
  }
  return new Raw(out);
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>`, `&` and the JS line separators are
 * written as \u escapes, so no value can close the script element or open a comment.
 */
export function jsonForScript(value: unknown): Raw {
  const json = JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return new Raw(json);
}

/** How every page the gateway serves opens: a document in the payer's language, sized for phones, never indexed. */
export function documentStart(lang: { locale: string; dir: string }): string {
  return `<!doctype html>${html`
<html lang="${lang.locale}" dir="${lang.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">`}`;
}
