-- FindEvents, InsertEventIfNoKey and MarkDuplicates look rows up by business key.
CREATE INDEX IF NOT EXISTS inbox_business_key ON inbox (business_key)
