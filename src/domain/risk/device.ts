/**
 * The payer's device id (issue 26): a random id the hosted payer pages keep in the browser (localStorage under the
 * gateway's origin; a third-party frame's storage is partitioned by the merchant's site, so a device id there is
 * per shop) and post with the card: the Checkout page's form (`device_id`) and the hosted-fields card frame's
 * collection. It keys the risk engine's `device` velocity counters (as a keyed hash, like every identifier) and its
 * `device` list entries, and stays on the payment (details.deviceId) so that it can be listed from the payment.
 * It is pseudonymous, not a fingerprint of the browser: clearing the site's storage starts a new one.
 */

/** 16 to 64 characters of letters, digits, - and _ (the pages make 22: 16 random bytes in base64url). */
export const DEVICE_ID_PATTERN = '^[A-Za-z0-9_-]{16,64}$';
const DEVICE_ID = new RegExp(DEVICE_ID_PATTERN);

/** The device id a page posted, when it has the shape one has; anything else is no device id. */
export const deviceIdOf = (value: unknown): string | undefined => (typeof value === 'string' && DEVICE_ID.test(value) ? value : undefined);
