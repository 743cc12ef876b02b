-- The sandbox provider's mail payouts (issue 17): the recipient opens the link the provider e-mailed and answers
-- the security question before the money is released. The answer is kept only as a salted SHA-256 digest; wrong
-- answers are counted in the row, so guesses from two tabs cannot exceed the limit between them.
ALTER TABLE sandbox_apm_payments ADD COLUMN security_question text;
ALTER TABLE sandbox_apm_payments ADD COLUMN security_answer_digest text;
ALTER TABLE sandbox_apm_payments ADD COLUMN answer_failures integer NOT NULL DEFAULT 0;
ALTER TABLE sandbox_apm_payments ADD COLUMN payee_name text;
-- What the payout was sent with from the MID (the provider's account and fee option), shown on the sandbox page.
ALTER TABLE sandbox_apm_payments ADD COLUMN account_uuid text;
ALTER TABLE sandbox_apm_payments ADD COLUMN fee_calculation_method text;
