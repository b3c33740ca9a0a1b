-- ListBookings (every reconcile run): booked rows created since a time, oldest first.
CREATE INDEX IF NOT EXISTS bookings_state_created ON bookings (state, created_at)
