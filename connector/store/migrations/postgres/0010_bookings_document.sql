-- BookingsForDocument (run under an invoice lock): the rows naming one ERPNext document.
CREATE INDEX IF NOT EXISTS bookings_document ON bookings (doctype, name)
