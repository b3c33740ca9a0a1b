package connector

import (
	"fmt"
	"strings"
)

// LifecycleDiagram renders Transitions and BookingTransitions as the text of the package
// documentation's lifecycle section (lifecycle_doc.go, rewritten by
// `go test -run TestLifecycleDoc -update .` and checked by the same test): a mermaid state
// diagram per table, then each action with what it accepts and means. ActionCorrect, which
// goes from every status to every final one, is one line rather than arrows.
func LifecycleDiagram() string {
	var b strings.Builder
	b.WriteString("Inbox statuses (Status, Transitions; [*] is a row's arrival):\n\n")
	b.WriteString("\tstateDiagram-v2\n")
	for _, s := range Arrivals {
		fmt.Fprintf(&b, "\t    [*] --> %s : receive\n", s)
	}
	type pair struct{ from, to Status }
	var order []pair
	labels := map[pair][]string{}
	for _, e := range Edges() {
		if e.Action == ActionCorrect {
			continue
		}
		p := pair{e.From, e.To}
		if _, ok := labels[p]; !ok {
			order = append(order, p)
		}
		labels[p] = append(labels[p], string(e.Action))
	}
	for _, p := range order {
		fmt.Fprintf(&b, "\t    %s --> %s : %s\n", p.from, p.to, strings.Join(labels[p], ", "))
	}
	b.WriteString("\nActions (from → to: meaning):\n\n")
	for _, t := range Transitions {
		if t.Action == ActionCorrect && t.Doc == "" {
			continue
		}
		from, to := joinStatuses(t.From), string(t.To)
		if t.Action == ActionCorrect {
			from, to = "any status", "pending or any of "+joinStatuses(finals)
		} else if to == "" {
			to = "(unchanged)"
		}
		fmt.Fprintf(&b, "  - %s: %s → %s: %s\n", t.Action, from, to, t.Doc)
	}
	b.WriteString("\nBooking states (BookingState, BookingTransitions; [*] is a row's insert or delete):\n\n")
	b.WriteString("\tstateDiagram-v2\n")
	b.WriteString("\t    [*] --> in_flight : claim\n\t    [*] --> void : void\n")
	b.WriteString("\t    in_flight --> [*] : release\n\t    booked --> [*] : forget\n")
	for _, t := range BookingTransitions {
		fmt.Fprintf(&b, "\t    %s --> %s\n", t.From, t.To)
	}
	b.WriteString("\nBooking transitions (from → to: meaning):\n\n")
	for _, t := range BookingTransitions {
		fmt.Fprintf(&b, "  - %s → %s: %s\n", t.From, t.To, t.Doc)
	}
	return b.String()
}

func joinStatuses(ss []Status) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}
