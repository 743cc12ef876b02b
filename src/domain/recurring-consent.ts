/**
 * The payer's recurring consent (wire-reference 2.1, recurring_consent_required): what a payment keeps of it, and
 * the fields it adds to callbacks and status answers. Ticked: consent_id and consent_state active; declined: the
 * payment was one-time and the extended_data block says consent_state ignored.
 */
export interface Consent {
  id?: string;
  state: 'active' | 'ignored';
}

export function consentOf(details: Readonly<Record<string, unknown>>): Consent | undefined {
  const consent = details.consent as Partial<Consent> | null | undefined;
  return consent && typeof consent === 'object' && (consent.state === 'active' || consent.state === 'ignored') ? (consent as Consent) : undefined;
}

/** The top-level fields of an active consent (none otherwise). */
export function consentFields(consent: Consent | undefined): Record<string, string> {
  return consent?.state === 'active' && consent.id ? { consent_id: consent.id, consent_state: 'active' } : {};
}

/** What a declined consent adds to the extended_data block (nothing otherwise). */
export function consentExtendedData(consent: Consent | undefined): Record<string, string> {
  return consent?.state === 'ignored' ? { consent_state: 'ignored' } : {};
}
