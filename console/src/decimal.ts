/** Decimal strings of the API compared and subtracted exactly (never as floats). */
function scaled(a: string, digits: number): bigint {
  const [whole = '0', fraction = ''] = a.split('.');
  return BigInt(whole + fraction.padEnd(digits, '0').slice(0, digits));
}

const digitsOf = (...xs: string[]) => Math.max(0, ...xs.map((x) => x.split('.')[1]?.length ?? 0));

export function compareDecimal(a: string, b: string): number {
  const d = digitsOf(a, b);
  const x = scaled(a, d);
  const y = scaled(b, d);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function subtractDecimal(a: string, b: string): string {
  const d = digitsOf(a, b);
  const n = scaled(a, d) - scaled(b, d);
  const negative = n < 0n;
  const text = (negative ? -n : n).toString().padStart(d + 1, '0');
  const out = d === 0 ? text : `${text.slice(0, -d)}.${text.slice(-d)}`;
  return negative ? `-${out}` : out;
}
