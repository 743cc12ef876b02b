-- The schedule runner's claim in a column of its own (issue 24). Before, a claimed charge's payment carried the
-- runner's token in pending_operation ('schedule:<id>') until the fence moved it to 'authorize'; now the token is
-- the charge row's, beside its lease (locked_until), and pending_operation only ever names an operation in flight:
-- NULL while the charge is only claimed (no acquirer called yet), 'authorize' from the fence to the answer, as for
-- every card payment. The re-check worker, which finds payments by pending_operation, no longer sees mere claims
-- (the runner's own recovery takes them over after the lease).
ALTER TABLE schedule_charges ADD COLUMN claimed_by text;

UPDATE schedule_charges c SET claimed_by = p.pending_operation
FROM payments p WHERE p.id = c.payment_id AND p.pending_operation LIKE 'schedule:%';

UPDATE payments SET pending_operation = NULL WHERE pending_operation LIKE 'schedule:%';
