-- The waits stored before wait_kind and wait_key, as "kind:key" text in wait_for ("reconcile"
-- alone), split once into the two columns. Rows already split are skipped, so the statement may
-- run again.
UPDATE inbox SET
    wait_kind = CASE WHEN instr(wait_for, ':') > 0 THEN substr(wait_for, 1, instr(wait_for, ':') - 1) ELSE wait_for END,
    wait_key = CASE WHEN instr(wait_for, ':') > 0 THEN substr(wait_for, instr(wait_for, ':') + 1) ELSE '' END
WHERE wait_for <> '' AND wait_kind = ''
