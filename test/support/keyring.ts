/** A vault keyring for tests that write merchants straight to a store with no gateway (its keys random, per process). */
import { randomBytes } from 'node:crypto';
import { keyringFromEnv } from '../../src/store/card-vault.ts';

export const TEST_KEYRING = keyringFromEnv(undefined, () => randomBytes(32));
