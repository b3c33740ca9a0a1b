package erpnextsim

import (
	"errors"
	"fmt"
)

// Integration Request (spec §5.1; recordings 29-api-user-post-integration-request, 45-*).
// Only System Manager may read it; no role may create it over REST (in_create), so the
// simulator creates them only through AddIntegrationRequest, as Administrator does from
// frappe.integrations.utils.create_request_log.

const irDT = "Integration Request"

var integrationRequestFields = `
integration_request_service|Data|Service||
status|Select|Status||
data|Code|Request Data||
output|Code|Output||
error|Code|Error||
reference_doctype|Link|Reference Document Type|DocType|
reference_docname|Dynamic Link|Reference Document Name|reference_doctype|
is_remote_request|Check|Is Remote Request?||
request_description|Data|Request Description||
request_id|Data|Request ID||
url|Small Text|URL||
request_headers|Code|Request Headers||
`

func init() {
	register(irDT, integrationRequestFields, nil)
	delete(noPermission, irDT)
}

// irStatuses are the status options of the doctype (§5.1).
var irStatuses = map[string]bool{"": true, "Queued": true, "Authorized": true, "Completed": true, "Cancelled": true, "Failed": true}

// IntegrationRequestSpec describes an Integration Request made by AddIntegrationRequest.
type IntegrationRequestSpec struct {
	Name               string // default a random 10-character name like "stv7lfv77m"
	Service            string // integration_request_service, e.g. "Razorpay"
	Status             string // "", Queued (default), Authorized, Completed, Cancelled, Failed
	ReferenceDoctype   string // e.g. "Payment Request"
	ReferenceDocname   string // e.g. "ACC-PRQ-2026-00001"
	Data               any    // request data: a string is stored as given; anything else as single-line Python json.dumps text (map keys sorted)
	Output, Error      string // output / error text
	RequestID          string
	RequestDescription string
	IsRemoteRequest    bool
}

// AddIntegrationRequest stores an Integration Request as Administrator and returns its name.
// Like ERPNext's validate_payment hook, it refuses one that references a Payment Request that
// is already Paid ("The Payment Request {0} is already paid, cannot process payment twice").
func (s *Site) AddIntegrationRequest(spec IntegrationRequestSpec) (string, error) {
	status := spec.Status
	if status == "" {
		status = "Queued"
	}
	if !irStatuses[status] {
		return "", fmt.Errorf("erpnextsim: Integration Request status %q is not one of the options", status)
	}
	data, ok := spec.Data.(string)
	if !ok && spec.Data != nil {
		data = pyJSON(spec.Data, true)
	}
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	name := spec.Name
	if name == "" {
		name = hashName()
	}
	if s.db.get(irDT, name) != nil {
		return "", fmt.Errorf("erpnextsim: Integration Request %q already exists", name)
	}
	if spec.ReferenceDoctype == prDT {
		if pr := s.db.get(prDT, spec.ReferenceDocname); pr != nil && pr.str("status") == "Paid" {
			return "", errors.New("erpnextsim: The Payment Request " + pr.name() + " is already paid, cannot process payment twice")
		}
	}
	r := newRecord(irDT)
	for k, v := range map[string]string{"integration_request_service": spec.Service, "status": status, "data": data,
		"output": spec.Output, "error": spec.Error, "reference_doctype": spec.ReferenceDoctype, "reference_docname": spec.ReferenceDocname,
		"request_id": spec.RequestID, "request_description": spec.RequestDescription} {
		if v != "" {
			r.f[k] = v
		}
	}
	r.f["is_remote_request"] = int64(b2i(spec.IsRemoteRequest))
	s.db.stampNew(r, name, admin)
	s.db.put(r)
	return name, nil
}
