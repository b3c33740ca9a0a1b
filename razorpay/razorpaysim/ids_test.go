package razorpaysim_test

import (
	"slices"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay"
	"github.com/razorpay-erpnext/razorpay-erpnext/razorpay/razorpaysim"
)

// payIDs creates n captured payments on a new Sim of opt and returns their ids, the account
// id and the contacts they were given.
func payIDs(t *testing.T, opt razorpaysim.Options, n int) (ids []string, account string, contacts []string) {
	t.Helper()
	s := newSim(t, nil, opt)
	for range n {
		p := mustPay(t, s, razorpay.Payment{Amount: 50000}, razorpaysim.PaymentOptions{})
		ids = append(ids, p.ID)
		contacts = append(contacts, p.Contact)
	}
	return ids, s.AccountID(), contacts
}

// Two simulators started one after the other hand out different ids unless both are given the
// same seed: a second `simulate razorpay` must not list the payment ids of the first.
func TestIDsRandomPerSimUnlessSeeded(t *testing.T) {
	t.Parallel()
	t.Run("UnseededSimsDiffer", func(t *testing.T) {
		a, accA, _ := payIDs(t, razorpaysim.Options{}, 3)
		b, accB, _ := payIDs(t, razorpaysim.Options{}, 3)
		for _, id := range a {
			if slices.Contains(b, id) {
				t.Errorf("payment id %s made by both unseeded simulators (first %v, second %v)", id, a, b)
			}
		}
		if accA == accB {
			t.Errorf("both unseeded simulators have account id %s", accA)
		}
	})
	t.Run("SameSeedSameIDs", func(t *testing.T) {
		a, accA, ca := payIDs(t, razorpaysim.Options{Seed: 42}, 3)
		b, accB, cb := payIDs(t, razorpaysim.Options{Seed: 42}, 3)
		if !slices.Equal(a, b) || accA != accB || !slices.Equal(ca, cb) {
			t.Errorf("seed 42 twice: ids %v / %v, accounts %s / %s, contacts %v / %v", a, b, accA, accB, ca, cb)
		}
		c, _, _ := payIDs(t, razorpaysim.Options{Seed: 43}, 3)
		if slices.Equal(a, c) {
			t.Errorf("seeds 42 and 43 made the same ids %v", a)
		}
	})
}

// A generated contact is one of Razorpay's ordinary formats; the "++91…" typo of Razorpay's
// doc samples appears only with Quirks.DoublePlusContact.
func TestGeneratedContacts(t *testing.T) {
	t.Parallel()
	ordinary := []string{"+919000090000", "9000090000", "+9000090000"}
	t.Run("OrdinaryFormatsByDefault", func(t *testing.T) {
		_, _, contacts := payIDs(t, razorpaysim.Options{Seed: 5}, 60)
		seen := map[string]bool{}
		for _, c := range contacts {
			if !slices.Contains(ordinary, c) {
				t.Errorf("generated contact %q is not one of %q", c, ordinary)
			}
			seen[c] = true
		}
		if len(seen) != len(ordinary) {
			t.Errorf("60 payments used the formats %v; want all of %q (mixed formats, checklist item 4)", seen, ordinary)
		}
	})
	t.Run("DoublePlusOnlyAsAQuirk", func(t *testing.T) {
		_, _, contacts := payIDs(t, razorpaysim.Options{Seed: 5, Quirks: razorpaysim.Quirks{DoublePlusContact: true}}, 60)
		if !slices.Contains(contacts, "++919900000000") {
			t.Errorf("60 payments with Quirks.DoublePlusContact, none with ++919900000000: %v", contacts)
		}
	})
}
