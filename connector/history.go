package connector

import "time"

// HistoryEntry is one thing a person did to an inbox row (events replay|dismiss, the console's
// Replay, Rebook and Dismiss), kept with the row (Store.SetEventStatusBy); connector/operator
// records and reads them.
type HistoryEntry struct {
	EventID  int64     // the inbox row's id
	At       time.Time // when, UTC
	Actor    string    // who: "hand" (the CLI's replay), $USER (its dismiss), "Priya (console)"
	Action   string    // HistoryReplayed, HistoryRebooked or HistoryDismissed
	From, To Status    // the row's status before and after
	Detail   string    // the dismiss reason; what a replay found ("was parked: …"); what a rebook forgot
	// Attempts is how many times workers had run the row since its previous replay when the
	// person acted (operator.AttemptsMade): a replay resets the row's own count, so totals add
	// these up.
	Attempts int
}

// The actions of a HistoryEntry.
const (
	HistoryReplayed  = "replayed"
	HistoryRebooked  = "rebooked"
	HistoryDismissed = "dismissed"
)
