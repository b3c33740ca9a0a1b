package reconcile

import (
	"encoding/json"
	"fmt"
)

// storedItemsMax is how many items of each list (queued, retried, parked, not booked,
// authorized) and anomalies a stored report keeps; the counts keep the full numbers.
const storedItemsMax = 500

// StoredReport is rep as saved with its run (connector.ReconcileRun.Report) for the console:
// the JSON `reconcile --json` prints, without the settlement lines (the console does not show
// them; settlements keep their own rows) and with each list cut to its first storedItemsMax
// entries, a warning saying how many were left out. It stays under about 1 MiB, whatever the
// window. Decode it with json.Unmarshal into a Report. It is nil when rep cannot be encoded
// (a time past year 9999): the run is recorded without a report.
func StoredReport(rep *Report) []byte {
	s := *rep
	s.Settlements = nil
	var cut []string
	keep := func(name string, items []Item) []Item {
		if len(items) <= storedItemsMax {
			return items
		}
		cut = append(cut, fmt.Sprintf("%d %s", len(items)-storedItemsMax, name))
		return items[:storedItemsMax]
	}
	s.Queued, s.Retried, s.Parked = keep("queued", s.Queued), keep("retried", s.Retried), keep("parked", s.Parked)
	s.NotBooked, s.Authorized = keep("not booked", s.NotBooked), keep("authorized", s.Authorized)
	if len(s.Anomalies) > storedItemsMax {
		cut = append(cut, fmt.Sprintf("%d anomalies", len(s.Anomalies)-storedItemsMax))
		s.Anomalies = s.Anomalies[:storedItemsMax]
	}
	if len(s.Warnings) > storedItemsMax {
		s.Warnings = s.Warnings[:storedItemsMax]
	}
	if len(cut) > 0 {
		s.Warnings = append(append([]string(nil), s.Warnings...), fmt.Sprintf("the stored report keeps %d of each list: left out %v (`reconcile --json` prints them all)", storedItemsMax, cut))
	}
	b, err := json.Marshal(&s)
	if err != nil {
		return nil
	}
	return b
}
