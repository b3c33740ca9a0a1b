-- ClaimNextEvent: processing rows whose lease has expired.
CREATE INDEX IF NOT EXISTS inbox_lease ON inbox (status, lease_until)
