-- Card vault retention (PCI DSS 3.1): a sweeper deletes vault rows nothing references (card-vault.ts,
-- purgeUnreferencedCards). These indexes turn its NOT EXISTS probes, and the foreign-key checks of each
-- DELETE, into index lookups rather than scans of payments, card_tokens and sessions.
CREATE INDEX payments_vault ON payments (vault_id) WHERE vault_id IS NOT NULL;
CREATE INDEX card_tokens_vault ON card_tokens (vault_id);
-- After its first complete pass a sweeper looks only at rows younger than a session's lifetime before it.
CREATE INDEX card_vault_created ON card_vault (created_at);

-- A hosted-fields session names the vault row of the card it collected last in request.cardVaultId (kept after
-- an attempt takes the card, until the attempt's payment names the row). Sessions collected before this
-- migration get it from their waiting card.
UPDATE sessions SET request = request || jsonb_build_object('cardVaultId', request->'collectedCard'->>'vaultId')
WHERE request ? 'collectedCard';
CREATE INDEX sessions_card_vault ON sessions ((request->>'cardVaultId')) WHERE request ? 'cardVaultId';
