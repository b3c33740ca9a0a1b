-- The dismissals made before the dismissals table, read from the inbox: a row a person dismissed
-- is dismissed with last_error "dismissed by <who>: <why>" (a row the worker finished as
-- dismissed because of another's dismissal, or whose dismissal a replay lifted, reads
-- otherwise and holds nothing). Who, why and when come from the row's last "dismissed" history
-- entry; a row dismissed before inbox_history has none, so they come from last_error and the
-- row's updated_at. Rows already copied are skipped, so the statement may run again.
INSERT INTO dismissals (inbox_id, event_id, event, business_key, actor, reason, at)
SELECT i.id, i.event_id, i.event, i.business_key,
    SUBSTRING(COALESCE((SELECT h.actor FROM inbox_history h WHERE h.inbox_id = i.id AND h.action = 'dismissed' AND h.to_status = 'dismissed' ORDER BY h.id DESC LIMIT 1),
        CASE WHEN INSTR(SUBSTRING(i.last_error, 14), ': ') > 0
            THEN SUBSTRING(i.last_error, 14, INSTR(SUBSTRING(i.last_error, 14), ': ') - 1) ELSE SUBSTRING(i.last_error, 14) END), 1, 255),
    COALESCE((SELECT h.detail FROM inbox_history h WHERE h.inbox_id = i.id AND h.action = 'dismissed' AND h.to_status = 'dismissed' ORDER BY h.id DESC LIMIT 1),
        CASE WHEN INSTR(SUBSTRING(i.last_error, 14), ': ') > 0
            THEN SUBSTRING(i.last_error, 15 + INSTR(SUBSTRING(i.last_error, 14), ': ')) ELSE '' END),
    COALESCE((SELECT h.at FROM inbox_history h WHERE h.inbox_id = i.id AND h.action = 'dismissed' AND h.to_status = 'dismissed' ORDER BY h.id DESC LIMIT 1), i.updated_at)
FROM inbox i
WHERE i.status = 'dismissed' AND SUBSTRING(i.last_error, 1, 13) = 'dismissed by '
    AND NOT EXISTS (SELECT 1 FROM dismissals d WHERE d.inbox_id = i.id)
ORDER BY i.id
