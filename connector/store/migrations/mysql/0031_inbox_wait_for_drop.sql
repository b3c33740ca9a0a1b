-- wait_for gives way to wait_kind and wait_key (0026–0029).
ALTER TABLE inbox DROP COLUMN IF EXISTS wait_for
