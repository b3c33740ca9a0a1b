-- Store.Dismissals: the dismissals of one payment, by the row dismissed.
CREATE INDEX IF NOT EXISTS dismissals_business_key ON dismissals (business_key, inbox_id)
