package erpnextsim

import (
	"fmt"
	"math/big"
	"strings"
)

// bankAccounts is the Bank and Bank Account doctypes and the GL account of a bank account.
type bankAccounts struct {
	db    *store
	links *links
}

// Bank and Bank Account (recordings 60-create-bank, 60-create-bank-account-doc,
// 66-bank-account-list-by-gl-account), following erpnext v15 bank.py / bank_account.py as read
// in the recorded 15.71.1 tree (not copied):
//
//   - a Bank is named by its bank_name (a second one of that name is 409 DuplicateEntryError);
//     swift_number is unique (417 UniqueValidationError "SWIFT number must be unique");
//   - a Bank Account is named "{account_name} - {bank}" (bank must exist: LinkValidationError);
//     is_company_account without company → 417 "Company is manadatory for company account"
//     (sic); an IBAN failing the mod-97 check → 417 "IBAN is not valid"; a GL account already
//     used by another Bank Account → 417 "'<strong>{account}</strong>' account is already used
//     by <strong>'{link}'</strong>. Use another account."; is_default clears is_default on the
//     other accounts of the same party / company-account kind.
//
// The GL account of a Bank Account is what the bank reconciliation matches vouchers against
// (bank_reconciliation.go).

func init() {
	insertHooks[bankDT] = func(s *Site) insertHook { return s.bankAccounts.insertBank }
	insertHooks[baDT] = func(s *Site) insertHook { return s.bankAccounts.insertBankAccount }
}

// uniqueViolation is the 417 of a unique column already taken (recording
// 67-bt-duplicate-transaction-id): UniqueValidationError, the plain message "{label} must be
// unique", and the IntegrityError naming the document that was being inserted.
func uniqueViolation(dt, name, label, field, value string) *fErr {
	return &fErr{status: 417, excType: "UniqueValidationError",
		exception: fmt.Sprintf("frappe.exceptions.UniqueValidationError: ('%s', '%s', IntegrityError(1062, \"Duplicate entry '%s' for key '%s'\"))",
			dt, name, value, field),
		msgs: []srvMsg{{message: label + " must be unique", title: "Message"}}}
}

// uniqueTaken returns a document of dt other than self whose field equals value under the
// site's collation (case-insensitive, trailing spaces ignored), or nil.
func (db *store) uniqueTaken(dt, field, value, self string) *record {
	if strings.TrimSpace(value) == "" {
		return nil
	}
	for _, r := range db.docs[dt] {
		if r.name() != self && compareValues(r.f[field], value, ftData) == 0 {
			return r
		}
	}
	return nil
}

func (bk *bankAccounts) insertBank(c *call, body map[string]any) (*fErr, step) {
	b := fromBody(bankDT, body, nil)
	name := strings.TrimSpace(b.str("bank_name"))
	if e := validateMandatory(b, name, nil); e != nil {
		return e, nil
	}
	if bk.db.get(bankDT, name) != nil {
		return duplicateName(bankDT, name), nil
	}
	if bk.db.uniqueTaken(bankDT, "swift_number", b.str("swift_number"), "") != nil {
		return uniqueViolation(bankDT, name, "SWIFT number", "swift_number", b.str("swift_number")), nil
	}
	return nil, func() any {
		bk.db.stampNew(b, name, c.user)
		bk.db.put(b)
		return b.render(c.keepNulls())
	}
}

func (bk *bankAccounts) insertBankAccount(c *call, body map[string]any) (*fErr, step) {
	ba := fromBody(baDT, body, nil)
	for _, k := range []string{"disabled", "is_default", "is_company_account"} {
		setDefault(ba, k, int64(0))
	}
	if e := bk.links.validateLinks(ba, false); e != nil {
		return e, nil
	}
	name := ba.str("account_name") + " - " + ba.str("bank")
	if e := bk.validateBankAccount(ba, name); e != nil {
		return e, nil
	}
	if e := validateMandatory(ba, name, nil); e != nil {
		return e, nil
	}
	if bk.db.get(baDT, name) != nil {
		return duplicateName(baDT, name), nil
	}
	return nil, func() any {
		if ba.int("is_default") == 1 && ba.int("disabled") == 0 {
			for _, other := range bk.db.docs[baDT] {
				if other.int("is_default") == 1 && other.int("disabled") == 0 && other.int("is_company_account") == ba.int("is_company_account") &&
					other.str("party_type") == ba.str("party_type") && other.str("party") == ba.str("party") {
					other.f["is_default"] = int64(0)
					bk.db.touch(other, c.user)
				}
			}
		}
		bk.db.stampNew(ba, name, c.user)
		bk.db.put(ba)
		return ba.render(c.keepNulls())
	}
}

// validateBankAccount is bank_account.py validate: company, IBAN, GL account not shared.
func (bk *bankAccounts) validateBankAccount(ba *record, name string) *fErr {
	if ba.int("is_company_account") == 1 && ba.str("company") == "" {
		return erpThrow("Company is manadatory for company account")
	}
	if iban := ba.str("iban"); iban != "" && !validIBAN(iban) {
		return erpThrow("IBAN is not valid")
	}
	if acct := ba.str("account"); acct != "" {
		var used []string
		for _, other := range bk.db.all(baDT) {
			if other.name() != name && compareValues(other.f["account"], acct, ftData) == 0 {
				used = append(used, "'"+bk.links.formLink(baDT, other.name())+"'")
			}
		}
		if len(used) > 0 {
			return erpThrow(fmt.Sprintf("'<strong>%s</strong>' account is already used by <strong>%s</strong>. Use another account.", acct, commaAnd(used)))
		}
	}
	return nil
}

// commaAnd joins like Frappe's comma_and: "a", "a and b", "a, b and c".
func commaAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// validIBAN is the ISO 13616 mod-97 check bank_account.py validate_iban makes.
func validIBAN(iban string) bool {
	iban = strings.ToUpper(strings.ReplaceAll(iban, " ", ""))
	if len(iban) < 4 {
		return false
	}
	var digits strings.Builder
	for _, ch := range iban[4:] + iban[:4] {
		switch {
		case ch >= 'A' && ch <= 'Z':
			fmt.Fprintf(&digits, "%d", ch-'A'+10)
		case ch >= '0' && ch <= '9':
			digits.WriteRune(ch)
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// bankGLAccount is the GL account of a Bank Account document ("" when the document does not
// exist or has none).
func (bk *bankAccounts) bankGLAccount(bankAccount string) string {
	if ba := bk.db.get(baDT, bankAccount); ba != nil {
		return ba.str("account")
	}
	return ""
}
