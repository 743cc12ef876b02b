/**
 * Apple Pay on the gateway's own page domain: Apple verifies the domain by fetching
 * `/.well-known/apple-developer-merchantid-domain-association`; the file is the one the operator uploaded in a
 * merchant's Wallets tab (the latest upload, when several merchants have one), answered byte for byte.
 */
import type { ServiceContext } from '../context.ts';
import { latestAppleDomainAssociation } from '../../store/merchant-config-repo.ts';

export const APPLE_DOMAIN_ASSOCIATION_PATH = '/.well-known/apple-developer-merchantid-domain-association';

export function appleDomainAssociation(ctx: ServiceContext): Promise<string | undefined> {
  return latestAppleDomainAssociation(ctx.db);
}
