package connector_test

import (
	"strings"
	"testing"

	"github.com/razorpay-erpnext/razorpay-erpnext/connector"
	"github.com/razorpay-erpnext/razorpay-erpnext/frappe/erpnextsim"
)

// The receipt path's lists that join a child table: on a real site an
// unqualified order_by that both tables have answers 500 1052 (erpnext-recorded-connector/R02),
// as the strict simulator does. Each call site is sent qualified and answered 200 (the
// paid-twice audit's are in connector/reconcile).

// joined returns the site's GET lists of doctype after the first n requests whose filters or
// fields name child, with their order_by and status.
func joined(site *erpnextsim.Site, n int, doctype, child string) (orders []string, statuses []int) {
	for _, r := range site.Requests()[n:] {
		if r.Method == "GET" && r.Path == "/api/resource/"+doctype && strings.Contains(r.Query.Get("filters")+r.Query.Get("fields"), child) {
			orders, statuses = append(orders, r.Query.Get("order_by")), append(statuses, r.Status)
		}
	}
	return orders, statuses
}

func TestJoinedListsOfTheReceiptPathAreQualified(t *testing.T) {
	t.Run("PaymentRequestEntries", func(t *testing.T) { // checkoutEntries: reference rows linking the Payment Request
		r := newRig(t)
		inv := r.invoice("Test Customer", "1200.00")
		pr, err := r.site.AddPaymentRequest(inv, erpnextsim.PaymentRequestSpec{})
		if err != nil {
			t.Fatal(err)
		}
		n := len(r.site.Requests())
		r.deliver("E1", captured(t, "pay_T3stJoinPr0001", 120000, "", map[string]any{"notes": map[string]any{"payment_request": pr}}))
		r.work()
		r.want("E1", connector.StatusDone, "created")
		orders, statuses := joined(r.site, n, "Payment Entry", "Payment Entry Reference")
		if len(orders) != 1 || orders[0] != "`tabPayment Entry`.`creation` asc" || statuses[0] != 200 {
			t.Errorf("Payment Request lookup sent order_by %q, answered %v; want one qualified list answered 200", orders, statuses)
		}
	})
	t.Run("ContactOfTheCustomer", func(t *testing.T) { // contactCustomers: Contact Email and Dynamic Link rows
		r := newRig(t, withConfig(func(c *connector.Config) {
			c.Mapping.WithoutInvoice, c.Mapping.CustomerFrom = "advance", []string{"contact.email"}
		}))
		if _, err := r.site.AddContact(erpnextsim.ContactSpec{FirstName: "Asha", Emails: []erpnextsim.ContactEmail{{Email: "asha@example.com"}},
			Customers: []string{"Test Customer"}}); err != nil {
			t.Fatal(err)
		}
		n := len(r.site.Requests())
		r.deliver("E1", captured(t, "pay_T3stJoinCt0001", 50000, "", map[string]any{"email": "asha@example.com"}))
		r.work()
		r.want("E1", connector.StatusDone, "created an advance for Test Customer")
		orders, statuses := joined(r.site, n, "Contact", "Dynamic Link")
		if len(orders) != 1 || orders[0] != "`tabContact`.`name` asc" || statuses[0] != 200 {
			t.Errorf("contact lookup sent order_by %q, answered %v; want one qualified list answered 200", orders, statuses)
		}
	})
}
