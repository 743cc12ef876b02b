/**
 * docs/methods.md, rendered from the catalog so that the coverage list cannot drift from the code
 * (scripts/methods-doc.ts writes it; a test compares).
 */
import { METHOD_LIST } from './catalog.ts';
import type { MethodEntry, MethodRule, ParamSpec } from './types.ts';

const PREAMBLE = `# Payment method catalog

<!-- Generated from src/domain/methods by \`node --import tsx scripts/methods-doc.ts > docs/methods.md\`.
     Do not edit by hand: test/methods/methods-doc.test.ts fails when this file is out of date. -->

Every method of the interface spec's "Method parameter sets" is one entry of the catalog in
\`src/domain/methods/\` (one file per family). A session's \`parameters.<key>\` is validated against its entry
(\`validate.ts\`), the hosted page asks for what the entry marks, and adding a method is adding an entry.

## How to read the entries

- **Keys.** The spec writes provider-specific keys as \`<prefix>-xxx\` and some methods only by kind; the
  Coverage table maps each to the key used here. A row of the spec naming several keys gives several entries.
- **Experience.** The flow the spec states for the method (redirect, QR, details shown, app confirmation,
  one-time code, link); members marked "asked on the page" are collected first, whatever the experience.
  *extra_fields* is the experience of methods whose only stated interaction is such fields.
- **Requirement.** *required*: must be sent, unless it is asked on the page. *conditional*: needed when its
  condition holds; the conditions the gateway knows are "asked on the page when absent" (needed: on Checkout
  the page asks, where no page can ask it must be sent) and billing countries. A conditional member whose
  condition the spec does not state is checked only when sent; its note says so. *optional*: checked when sent.
- **Source.** *parameters*: a member of \`parameters.<key>\` (S2S APM: \`parameters[name]\`). *request*: a field of
  the request itself, named by its Checkout path (S2S APM names it \`order_amount\`, \`order_description\`, ...).
  *mid*, *gateway*, *page*: supplied by the MID configuration, by the gateway or connector, or typed by the
  payer on the hosted page; never required of the merchant, but checked if the merchant sends them in
  parameters (a value the method fixes, such as an instant-payment \`type\`, is filled in when absent).
- **Shapes.** AN n: text of at most n characters; N n: at most n digits; A n: exactly n letters; N10.N2: a
  decimal with up to 10 integer and 2 fraction digits. Numbers are accepted where text is expected
  (\`"quantity": 2\`), and numbers and booleans as strings (S2S is form-encoded).
- **Errors.** HTTP 400 \`Request data is invalid.\` with one \`<path>: <message>\` per failing field (decisions
  D3), paths in full: \`parameters.card.cart.items[0].price: This value is too long. It should have 13 characters or less.\`
  Checks run in this order and the first failure is reported: type (\`This value should be of type string|numeric|integer|bool|array|digit|alpha.\`),
  length (\`too long\`, \`too short\`, \`should have exactly n characters\`), shape, format (URL, e-mail, date,
  datetime, country, currency), pattern (\`This value is not valid.\`), allowed values (\`The value you selected is not a valid choice.\`).
  A method restricting the currency refuses others on \`order.currency\` with "not a valid choice".
- **Unknown members are passed through unchecked**, at every depth: parameters go on to the connector and
  the card sets depend on the connector service, so a provider's further members must not be refused. Two
  exceptions, both from the spec: a key of \`parameters\` that is not one of the session's \`methods\` is
  refused (\`parameters.session_expiry: This field was not expected.\`), and so is a top-level session field
  (session_expiry, success_url, customer, ...) placed inside \`parameters.<key>\` unless the method declares it.
- **Where the spec is silent** the entry's note says what was chosen (formats of UPI addresses, tax ids,
  member names the spec only describes in words).
`;

/** Table cells: a pipe must be escaped even inside code spans (GitHub tables). Applied once, per row. */
const esc = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string | number | boolean) => `\`${String(text)}\``;
const row = (cells: readonly string[]) => `| ${cells.map(esc).join(' | ')} |`;
const list = (values: readonly string[]) => values.map(code).join(', ');

function lengthText(p: ParamSpec): string | undefined {
  const { minLength: min, maxLength: max } = p;
  if (min !== undefined && min === max) return `exactly ${min}`;
  if (min !== undefined && max !== undefined) return `${min} to ${max} chars`;
  if (max !== undefined) return `max ${max}`;
  return min !== undefined ? `min ${min}` : undefined;
}

const FORMATS: Record<string, string> = {
  country: 'ISO 3166-1 alpha-2 country',
  'country-or-numeric': 'ISO 3166-1 alpha-2 or 3-digit country',
  currency: 'currency code',
  base64: 'base-64',
};

function ruleText(p: ParamSpec): string {
  const parts = [
    lengthText(p),
    p.shape === 'N' ? 'digits' : p.shape === 'A' ? 'letters' : undefined,
    p.decimal && `decimal N${p.decimal.integer}.N${p.decimal.fraction}`,
    p.format && FORMATS[p.format],
    p.pattern && `pattern ${code(p.pattern)}`,
    p.values && (p.values.length === 1 ? `fixed ${code(p.values[0] as string)}` : `one of ${list(p.values)}`),
    p.default !== undefined && `default ${code(p.default)}`,
    p.requiredIn && `required for billing countries ${p.requiredIn.join(', ')}`,
    p.exemptIn && `not required in ${p.exemptIn.join(', ')}`,
    p.collectOnPage && `asked on the page when absent${p.label ? ` ("${p.label}")` : ''}`,
    p.example !== undefined && `e.g. ${code(p.example)}`,
  ];
  return parts.filter((x): x is string => typeof x === 'string' && x.length > 0).join('; ');
}

/** One row per member, nested members with their full path (`cart.items[n].price`). */
function memberRows(params: readonly ParamSpec[], base = ''): string[] {
  return params.flatMap((p) => {
    const path = base ? `${base}.${p.name}` : p.name;
    const type = p.type === 'array' && p.items ? `array of ${p.items.type}` : p.type;
    const notes = [p.group && `${p.group}.`, p.note].filter(Boolean).join(' ');
    const nested = p.members ? memberRows(p.members, path) : p.items?.members ? memberRows(p.items.members, `${path}[n]`) : [];
    return [row([code(path), p.source ?? 'parameters', type, p.requirement, ruleText(p), notes]), ...nested];
  });
}

function methodRuleText(rule: MethodRule): string {
  const when = 'when' in rule ? `when ${code(rule.when.member)} is ${list(rule.when.values)}` : '';
  switch (rule.kind) {
    case 'allOrNone':
      return `All or none of ${list(rule.members)}. ${rule.note}`;
    case 'together':
      return `${list(rule.members)} go together; one sent alone is dropped. ${rule.note}`;
    case 'onlyWhen':
      return `${code(rule.member)} only ${when}; otherwise refused. ${rule.note}`;
    case 'patternWhen':
      return `${code(rule.member)} matches ${code(rule.pattern)} ${when}. ${rule.note}`;
    case 'equalsWhen':
      return `${code(rule.member)} equals ${code(rule.value)} ${when}. ${rule.note}`;
  }
}

function coverageRow(m: MethodEntry): string {
  const currencies = (m.currencies ?? []).join(', ') || (m.currencyKind ? `${m.currencyKind} only` : 'any');
  return row([m.specName, code(m.key), m.experience, m.operations.join(', '), (m.channels ?? []).join(', '), currencies]);
}

function methodSection(m: MethodEntry): string[] {
  const options = m.experienceOptions ? ` (${Object.entries(m.experienceOptions).map(([k, v]) => `${k}: ${v}`).join(', ')})` : '';
  const lines = [`### ${code(m.key)}: ${m.label}`, '', `${m.specName}. Kind: ${m.kind}. Experience: ${m.experience}${options}.`, ''];
  if (m.params.length === 0) lines.push('No parameters of its own.', '');
  else lines.push('| Member | Source | Type | Requirement | Rules | Notes |', '|---|---|---|---|---|---|', ...memberRows(m.params), '');
  const rules = (m.rules ?? []).map((r) => `- ${methodRuleText(r)}`);
  const notes = (m.notes ?? []).map((n) => `- ${n}`);
  if (rules.length > 0) lines.push('Rules:', '', ...rules, '');
  if (notes.length > 0) lines.push('Notes:', '', ...notes, '');
  return lines;
}

export function renderMethodsDoc(methods: readonly MethodEntry[] = METHOD_LIST): string {
  return [
    PREAMBLE,
    `## Coverage (${methods.length} methods)`,
    '',
    '| Spec | Key | Experience | Operations | Channels | Currencies |',
    '|---|---|---|---|---|---|',
    ...methods.map(coverageRow),
    '',
    '## Methods',
    '',
    ...methods.flatMap(methodSection),
  ].join('\n');
}
