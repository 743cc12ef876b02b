/**
 * The hosted payment fields' browser side (wire-reference 7.4): the SDK merchants load from
 * `/sdk/hosted-fields.js`, and the field frame it embeds once per field (card, expiry, cvv), each holding one
 * input. The frame page is pure HTML with its script and stylesheet as files, so it runs under FRAME_CSP
 * (no inline script or style); the merchant's `style` option reaches it by postMessage and is applied
 * through the CSSOM after filtering.
 */
import { attrs, documentStart, html } from '../html.ts';
import { EN, type Translator } from '../i18n.ts';
import { loadStatic, type StaticFile } from '../static-file.ts';

export type { StaticFile };

export const FIELD_KINDS = ['card', 'expiry', 'cvv'] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export const isFieldKind = (value: string): value is FieldKind => (FIELD_KINDS as readonly string[]).includes(value);

export const SDK_PATH = '/sdk/hosted-fields.js';
export const FRAME_PATH = '/hosted-fields/frame';
export const FRAME_SCRIPT_PATH = '/hosted-fields/field.js';
export const FRAME_STYLE_PATH = '/hosted-fields/field.css';
export const COLLECT_PATH = '/hosted-fields/collect';

/**
 * The field frame talks only to the gateway (connect-src 'self') and may be embedded by any merchant page
 * (frame-ancestors *): the data flows frame -> gateway, never frame -> merchant.
 */
export const FRAME_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  'frame-ancestors *',
].join('; ');

const load = (name: string, contentType: string): StaticFile => loadStatic(new URL(`./${name}`, import.meta.url), contentType);

export const SDK_FILE = load('hosted-fields.js', 'text/javascript; charset=utf-8');
export const FRAME_SCRIPT = load('field.js', 'text/javascript; charset=utf-8');
export const FRAME_STYLE = load('field.css', 'text/css; charset=utf-8');

/** What each field's input is: its label for assistive technology, autocomplete token and input hints. */
const INPUTS: Readonly<Record<FieldKind, { label: string; name: string; autocomplete: string; maxlength: number }>> = {
  card: { label: 'fields.cardLabel', name: 'cardnumber', autocomplete: 'cc-number', maxlength: 23 },
  expiry: { label: 'fields.expiryLabel', name: 'exp-date', autocomplete: 'cc-exp', maxlength: 7 },
  cvv: { label: 'fields.cvvLabel', name: 'cvc', autocomplete: 'cc-csc', maxlength: 4 },
};

/** The page inside one field frame. No configuration is in it: the SDK sends that by postMessage. */
export function renderFieldFrame(kind: FieldKind, t: Translator = EN): string {
  const input = INPUTS[kind];
  const label = t.t(input.label);
  return `${documentStart(t)}${html`
<meta name="referrer" content="no-referrer">
<title>${label}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" id="field-css" href="${FRAME_STYLE_PATH}">
<script src="${FRAME_SCRIPT_PATH}" defer></script>
</head>
<body${attrs({ 'data-field': kind })}>
<input${attrs({
    id: 'field',
    name: input.name,
    type: 'text',
    inputmode: 'numeric',
    autocomplete: input.autocomplete,
    'aria-label': label,
    dir: 'ltr',
    maxlength: input.maxlength,
    spellcheck: 'false',
    autocorrect: 'off',
    autocapitalize: 'off',
    disabled: true,
  })}>
</body>
</html>
`.html}`;
}
