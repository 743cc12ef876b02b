/**
 * The card vault's retention (PCI DSS 3.1): deleting rows nothing references any more, in batches of one
 * statement each that skip rows another sweeper holds. The worker reaches the vault through services.
 */
export { purgeUnreferencedCards } from '../store/card-vault.ts';
