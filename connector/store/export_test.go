package store

// SetBeforeClaim makes ClaimNextEvent call f with each candidate's id after it found the row
// due and before its claiming UPDATE: the window in which, on a multi-writer Galera cluster, a
// worker on another node claims the same row without this node seeing a lock.
func SetBeforeClaim(d *DB, f func(id int64)) { d.beforeClaim = f }
