-- The foreign key from payment_attempts to payments (030) costs what migration 007 took away from transactions:
-- a check at the end of every statement that opens an attempt (the S2S sale's grouped insert, a cascade's move)
-- that the payment exists, a query and a FOR KEY SHARE lock on the payment row it names. Attempts are only ever
-- written by the gateway beside or after their payment, and payments are never deleted nor their ids changed
-- (the triggers of 007), so the reference stays sound without the check.
ALTER TABLE payment_attempts DROP CONSTRAINT IF EXISTS payment_attempts_payment_id_fkey;
