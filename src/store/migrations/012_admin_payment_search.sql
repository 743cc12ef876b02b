-- The operators' payment search (issue 11, GET /admin/v1/payments): newest first, paged by an opaque cursor
-- on (created_at, id). Each index below leads with what a search filters on and ends with the cursor's order,
-- so a page is a short range read of one index however many payments match: no sort, no scan.
-- The expressions must stay exactly those of store/payment-search-repo.ts (SEARCH_EXPRESSIONS), or the planner
-- cannot use them. The partial predicates (payer ? 'email', details ? 'first6Last4') keep payments without an
-- e-mail or a card out of those indexes; the search repeats them so the planner knows they hold.
CREATE INDEX payments_created ON payments (created_at DESC, id DESC);
CREATE INDEX payments_merchant_created ON payments (merchant_id, created_at DESC, id DESC);
CREATE INDEX payments_order_id_created ON payments (order_id, created_at DESC, id DESC);
CREATE INDEX payments_payer_email ON payments ((lower(payer->>'email')), created_at DESC, id DESC) WHERE payer ? 'email';
CREATE INDEX payments_card_last4 ON payments ((right(details->>'first6Last4', 4)), created_at DESC, id DESC) WHERE details ? 'first6Last4';
CREATE INDEX payments_card_first6 ON payments ((left(details->>'first6Last4', 6)), created_at DESC, id DESC) WHERE details ? 'first6Last4';
