/**
 * Errors in words (issue 31 item 9): the API's D3 field errors name a path ("rules[0].when.card_countries[0]: ..."),
 * which the console shows as the form names it ("Rule 1, Card countries: ..."). A key no label names is written as
 * words ("allowed_source_addresses" reads "Allowed source addresses").
 */
const LABELS: Readonly<Record<string, string>> = {
  currencies: 'Currencies', brands: 'Card brands', card_countries: 'Card countries', billing_countries: 'Billing countries', methods: 'Methods',
  bin_ranges: 'BIN ranges', amount: 'Amount', min: 'Minimum', max: 'Maximum', operations: 'Operations', recurring: 'Recurring', custom_data: 'Custom data',
  mid_id: 'MID', mid_ids: 'MIDs', weight: 'Weight', kind: 'Output', max_extra_attempts: 'Further MIDs after a retryable decline',
  exploration_percent: 'Exploration (%)', min_outcomes: 'Minimum outcomes', default_score: 'Default score', success_half_life_minutes: 'Half-life (minutes)',
  payer_retries: 'Payer retries', max_attempts: 'Attempts per session', receipt_email: 'Receipt e-mail', email: 'E-mail', password: 'Password',
  notification_url: 'Notification URL', allowed_source_addresses: 'Allowed source addresses', request_signature: 'Request signature',
  connector_options: 'Connector options', mobile_money: 'Mobile money', fee_bearer: 'Fee bearer', voucher_partner: 'Voucher partner', partner_ids: 'Partner id per currency',
  mail_payout: 'Mail payout', account_uuid: 'Account UUID', fee_calculation_method: 'Fee calculation', token_call: 'Token call', private_key: 'Private key',
  merchant_identifier: 'Merchant identifier', shop_name: 'Shop name', country: 'Country', domains: 'Domains', gateway_merchant_id: 'Gateway merchant id',
  payment_mode: 'Payment mode', priority: 'Priority', settings: 'Settings', credentials: 'Credentials', role: 'Role',
};

/** Containers whose items the form numbers ("Rule 1", "Share 2"). */
const ITEMS: Readonly<Record<string, string>> = { rules: 'Rule', shares: 'Share' };
/** Path parts that are structure only. */
const SILENT = new Set(['when', 'then', 'request', 'body', 'apple_pay', 'google_pay']);

const words = (key: string) => {
  const text = key.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** "rules[0].when.card_countries[0]" -> "Rule 1, Card countries". */
export function fieldLabel(path: string): string {
  const parts: string[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[1] !== undefined) {
      if (!SILENT.has(m[1]) && !ITEMS[m[1]]) parts.push(LABELS[m[1]] ?? words(m[1]));
      else if (ITEMS[m[1]]) parts.push(`\u0000${m[1]}`);
    } else if (m[2] !== undefined) {
      const last = parts[parts.length - 1];
      // An item of a numbered container is named by its number; an item of a list is its list.
      if (last?.startsWith('\u0000')) parts[parts.length - 1] = `${ITEMS[last.slice(1)]} ${Number(m[2]) + 1}`;
    }
  }
  return parts.filter((p) => !p.startsWith('\u0000')).join(', ');
}

/** One D3 error message in words: "<path>: <message>" with the path as a label; other messages as they are. */
export function inWords(message: string): string {
  const at = message.indexOf(': ');
  if (at <= 0) return message;
  const path = message.slice(0, at);
  if (!/^[A-Za-z_][\w]*(\[\d+\]|\.[A-Za-z_]\w*)*$/.test(path)) return message;
  return `${fieldLabel(path) || path}: ${message.slice(at + 2)}`;
}
