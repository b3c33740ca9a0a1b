-- The waits stored before wait_kind and wait_key, as "kind:key" text in wait_for ("reconcile"
-- alone), split once into the two columns. Rows already split are skipped, so the statement may
-- run again.
UPDATE inbox SET
    wait_kind = CASE WHEN INSTR(wait_for, ':') > 0 THEN SUBSTRING(wait_for, 1, INSTR(wait_for, ':') - 1) ELSE wait_for END,
    wait_key = CASE WHEN INSTR(wait_for, ':') > 0 THEN SUBSTRING(wait_for, INSTR(wait_for, ':') + 1) ELSE '' END
WHERE wait_for <> '' AND wait_kind = ''
