-- wait_for gives way to wait_kind and wait_key (0026–0029): its index goes first.
DROP INDEX IF EXISTS inbox_wait_for
