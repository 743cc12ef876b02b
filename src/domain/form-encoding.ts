/**
 * `application/x-www-form-urlencoded` encoding of callback fields (decisions D7, wire-reference 4.1):
 * nested values as bracket keys (`custom_data[key]=value`, `a[0][b]=c`), spaces as `+`, UTF-8.
 * Characters are escaped as PHP's urlencode does (only A-Z a-z 0-9 - _ . stay literal), which is what the
 * platform's own callbacks look like (`card=411111%2A%2A%2A%2A1111`).
 */

export type FormValue =
  | string
  | number
  | boolean
  | bigint
  | null
  | undefined
  | readonly FormValue[]
  | { readonly [key: string]: FormValue };

export type FormFields = { readonly [key: string]: FormValue };

export interface FormEncodeOptions {
  /**
   * Drop fields whose value is the empty string. Default true: S2S callbacks do not send parameters without
   * a value. Checkout callbacks pass false, because they send RRN and ARN empty when missing.
   * null and undefined are always dropped.
   */
  omitEmptyStrings?: boolean;
}

/** Text PHP's urlencode leaves as it is: most field values (ids, amounts, statuses) need no escaping at all. */
const UNRESERVED_ONLY = /^[A-Za-z0-9._-]*$/;
/** What encodeURIComponent leaves literal or escapes otherwise than PHP's urlencode: `! ' ( ) * ~` and the space. */
const URI_ONLY = /[!'()*~]|%20/g;
const phpEscape = (match: string): string => (match === '%20' ? '+' : `%${match.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Percent-encodes one key segment or value: UTF-8 bytes, space as `+` (lone surrogates become U+FFFD).
 * encodeURIComponent escapes the same bytes, in upper-case hexadecimal, but for the six characters put right after it.
 */
export function formEncodeComponent(text: string): string {
  if (UNRESERVED_ONLY.test(text)) return text;
  let escaped: string;
  try {
    escaped = encodeURIComponent(text);
  } catch {
    escaped = encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD')); // URIError: a lone surrogate
  }
  return escaped.replace(URI_ONLY, phpEscape);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Flattens nested fields into encoded `[key, value]` pairs, in the fields' own order. */
export function formPairs(fields: FormFields, options: FormEncodeOptions = {}): [string, string][] {
  const omitEmpty = options.omitEmptyStrings ?? true;
  const pairs: [string, string][] = [];
  const visit = (key: string, value: FormValue): void => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      value.forEach((item: FormValue, i) => visit(`${key}[${i}]`, item));
    } else if (typeof value === 'object') {
      for (const [sub, item] of Object.entries(value)) visit(`${key}[${formEncodeComponent(sub)}]`, item);
    } else {
      const text = String(value);
      if (text === '' && omitEmpty) return;
      pairs.push([key, formEncodeComponent(text)]);
    }
  };
  for (const [key, value] of Object.entries(fields)) visit(formEncodeComponent(key), value);
  return pairs;
}

/** The request body: `k=v&custom_data[key]=value&...`. */
export function encodeForm(fields: FormFields, options: FormEncodeOptions = {}): string {
  return formPairs(fields, options)
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}
