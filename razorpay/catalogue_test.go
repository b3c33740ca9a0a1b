package razorpay

import (
	"slices"
	"testing"
)

func TestCatalogueNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Catalogue() {
		if seen[e.Name] {
			t.Errorf("%s appears twice in the catalogue", e.Name)
		}
		seen[e.Name] = true
		if got, ok := LookupEvent(e.Name); !ok || got != e {
			t.Errorf("LookupEvent(%q) = %+v, %v; want %+v, true", e.Name, got, ok, e)
		}
	}
}

func TestOfferedEventsAreTheConsoleFilter(t *testing.T) {
	want := []string{"payment.captured", "order.paid", "payment_link.paid", "payment_link.partially_paid",
		"payment.authorized", "payment.failed", "refund.processed", "refund.failed", "refund.created",
		"payment.dispute.created", "payment.dispute.won", "payment.dispute.lost", "payment.dispute.closed"}
	if got := OfferedEvents(); !slices.Equal(got, want) {
		t.Errorf("OfferedEvents() = %q, want %q", got, want)
	}
}

func TestLookupEventOutsideTheCatalogue(t *testing.T) {
	for _, c := range []struct {
		name    string
		meaning Meaning
		key     string
	}{
		{"payment.dispute.reopened", MeansDispute, "dispute"},
		{"refund.arn_updated", MeansNothing, "refund"},
		{"settlement.failed", MeansNothing, "settlement"},
		{"invoice.paid", MeansNothing, "payment"},
		{"", MeansNothing, "payment"},
	} {
		got, ok := LookupEvent(c.name)
		if ok || got.Meaning != c.meaning || got.KeyEntity != c.key || got.Offered || got.RetriedAtOnce {
			t.Errorf("LookupEvent(%q) = %+v, %v; want meaning %d, key %s, not in the catalogue", c.name, got, ok, c.meaning, c.key)
		}
	}
}

func TestRetriedAtOnceIsSpecSection15(t *testing.T) {
	var got []string
	for _, e := range Catalogue() {
		if e.RetriedAtOnce {
			got = append(got, e.Name)
		}
	}
	want := []string{"payment.captured", "order.paid", "payment.authorized"}
	if !slices.Equal(got, want) {
		t.Errorf("retried at once: %q, want %q", got, want)
	}
}
