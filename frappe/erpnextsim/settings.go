package erpnextsim

// Accounts Settings, a Single doctype (recordings 52-*): acc_frozen_upto closes the books up to
// a date. Entries dated on or before it pass as drafts and are refused on submit with
// "You are not authorized to add or update entries before {dd-mm-yyyy}" unless the user has
// the frozen_accounts_modifier role (erpnext v15 general_ledger.py check_freezing_date, read,
// not copied).

const accountsSettings = "Accounts Settings"

var accountsSettingsFields = `
acc_frozen_upto|Date|Accounts Frozen Till Date||
frozen_accounts_modifier|Data|Role Allowed to Set Frozen Accounts and Edit Frozen Entries||
create_pr_in_draft_status|Check|Create in Draft Status||
delete_linked_ledger_entries|Check|Delete Accounting and Stock Ledger Entries on deletion of Transaction||
unlink_payment_on_cancellation_of_invoice|Check|Unlink Payment on Cancellation of Invoice||
`

func init() {
	register(accountsSettings, accountsSettingsFields, nil)
	delete(knownUnmodelled, accountsSettings)
}

func (ac *accounts) setupAccountsSettings() {
	r := newRecord(accountsSettings)
	r.f["create_pr_in_draft_status"], r.f["delete_linked_ledger_entries"], r.f["unlink_payment_on_cancellation_of_invoice"] = int64(1), int64(0), int64(1)
	ac.db.stampNew(r, accountsSettings, admin)
	ac.db.put(r)
}

// SetFrozenUpto sets Accounts Settings acc_frozen_upto ("YYYY-MM-DD"; "" clears it), as
// PUT /api/resource/Accounts Settings/Accounts Settings does (recording 52-set-acc-frozen-upto-yesterday).
func (s *Site) SetFrozenUpto(date string) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	r := s.db.get(accountsSettings, accountsSettings)
	if date == "" {
		delete(r.f, "acc_frozen_upto")
	} else {
		r.f["acc_frozen_upto"] = date
	}
	s.db.touch(r, admin)
}

// updateSettings is PUT on the Accounts Settings single: the sent fields overlay the document.
func (ac *accounts) updateSettings(c *call, cur *record, body map[string]any) (*fErr, step) {
	next := fromBody(cur.dt, body, cur)
	return nil, func() any {
		ac.db.touch(next, c.user)
		ac.db.put(next)
		return next.render(c.keepNulls())
	}
}

// checkFrozen refuses a posting on or before acc_frozen_upto (recording 52-pe-posting-date-in-frozen-period).
func (lg *ledger) checkFrozen(c *call, date string) *fErr {
	st := lg.db.get(accountsSettings, accountsSettings)
	upto := st.str("acc_frozen_upto")
	if upto == "" || date > upto {
		return nil
	}
	if role := st.str("frozen_accounts_modifier"); role != "" {
		for _, r := range lg.users.roles(c.user) {
			if r == role {
				return nil
			}
		}
	}
	return erpThrow("You are not authorized to add or update entries before " + upto[8:10] + "-" + upto[5:7] + "-" + upto[0:4])
}
