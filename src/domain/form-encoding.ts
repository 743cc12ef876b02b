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

const utf8 = new TextEncoder();

function isUnreserved(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    byte === 0x2d || byte === 0x2e || byte === 0x5f // - . _
  );
}

/** Percent-encodes one key segment or value: UTF-8 bytes, space as `+` (lone surrogates become U+FFFD). */
export function formEncodeComponent(text: string): string {
  let out = '';
  for (const byte of utf8.encode(text)) {
    if (byte === 0x20) out += '+';
    else if (isUnreserved(byte)) out += String.fromCharCode(byte);
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

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
