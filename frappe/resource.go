package frappe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Filter is one list condition, sent inside the JSON `filters`/`or_filters` parameters
// (spec/erpnext.md §1.4): [field, op, value], or [DocType, field, op, value] where DocType may
// be a child doctype (e.g. {"Payment Entry Reference", "reference_name", "=", "ACC-SINV-…"}).
// Values are JSON-encoded as given.
type Filter []any

// ListOptions are the query parameters of a list call (spec/erpnext.md §1.4).
type ListOptions struct {
	Fields    []string // `fields`, JSON list; default on the server: ["name"]
	Filters   []Filter // `filters`, ANDed
	OrFilters []Filter // `or_filters`, ORed, then ANDed with Filters
	// OrderBy is `order_by`, e.g. "modified desc"; send it when paging (without it the site
	// emits no ORDER BY). When the list joins a child table (a 4-element filter on another
	// doctype, or a field of a child table) List qualifies every plain column with the parent
	// table ("`tabPayment Entry`.`creation` asc"): MariaDB refuses an unqualified column both
	// tables have with 500 OperationalError 1052 (erpnext-recorded-connector/R01, R02).
	OrderBy string
	Start   int    // `limit_start`, sent when > 0
	Limit   int    // page size sent as `limit_page_length` when > 0 (the server's default is 20)
	All     bool   // `limit_page_length=0`: all rows; wins over Limit
	Parent  string // `parent`, the parent doctype, needed when listing a child doctype
}

func (o ListOptions) query(doctype string) (url.Values, error) {
	q := url.Values{}
	for name, v := range map[string]any{"fields": o.Fields, "filters": o.Filters, "or_filters": o.OrFilters} {
		if listLen(v) == 0 {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", name, err)
		}
		q.Set(name, string(b))
	}
	if o.OrderBy != "" {
		q.Set("order_by", o.orderBy(doctype))
	}
	if o.Start > 0 {
		q.Set("limit_start", strconv.Itoa(o.Start))
	}
	switch {
	case o.All:
		q.Set("limit_page_length", "0")
	case o.Limit > 0:
		q.Set("limit_page_length", strconv.Itoa(o.Limit))
	}
	if o.Parent != "" {
		q.Set("parent", o.Parent)
	}
	return q, nil
}

func listLen(v any) int {
	switch v := v.(type) {
	case []string:
		return len(v)
	case []Filter:
		return len(v)
	}
	return 0
}

// List runs GET /api/resource/{doctype} and decodes "data" into out, a pointer to a slice of
// structs or maps (numbers in maps arrive as json.Number). Every docstatus is returned unless
// filtered. A list that joins a child table has its order_by qualified with the parent table
// (see ListOptions.OrderBy). Errors: *Error, *TransportError, or a plain error for bad
// arguments or an undecodable body.
func (c *Client) List(ctx context.Context, doctype string, opt ListOptions, out any) error {
	path := "/api/resource/" + doctype
	if doctype == "" {
		return errors.New("frappe: List: empty doctype")
	}
	q, err := opt.query(doctype)
	if err != nil {
		return fmt.Errorf("frappe: GET %s: %w", path, err)
	}
	return c.do(ctx, call{method: http.MethodGet, path: path, rawPath: resourcePath(doctype, ""),
		query: q, key: "data", out: out})
}

// Get runs GET /api/resource/{doctype}/{name} and decodes the document ("data", child tables
// included, null fields omitted by the server) into out. A missing document is an *Error with
// Status 404 (IsNotFound).
func (c *Client) Get(ctx context.Context, doctype, name string, out any) error {
	if doctype == "" || name == "" {
		return errors.New("frappe: Get: empty doctype or name")
	}
	return c.do(ctx, call{method: http.MethodGet, path: "/api/resource/" + doctype + "/" + name,
		rawPath: resourcePath(doctype, name), key: "data", out: out})
}

// Insert runs POST /api/resource/{doctype} with doc as the JSON body and decodes the inserted
// document ("data") into out, which may be nil. A body with "docstatus": 1 inserts and submits
// in one call (spec/erpnext.md §1.7). After a *TransportError without BeforeSend the insert may
// still have been committed.
func (c *Client) Insert(ctx context.Context, doctype string, doc any, out any) error {
	if doctype == "" || doc == nil {
		return errors.New("frappe: Insert: empty doctype or document")
	}
	return c.do(ctx, call{method: http.MethodPost, path: "/api/resource/" + doctype,
		rawPath: resourcePath(doctype, ""), body: doc, key: "data", out: out})
}

// Update runs PUT /api/resource/{doctype}/{name} with fields as the JSON body (only those fields
// change; {"docstatus": 1} submits, {"docstatus": 2} cancels, spec/erpnext.md §1.7) and decodes
// the saved document ("data") into out, which may be nil.
func (c *Client) Update(ctx context.Context, doctype, name string, fields any, out any) error {
	if doctype == "" || name == "" || fields == nil {
		return errors.New("frappe: Update: empty doctype, name or fields")
	}
	return c.do(ctx, call{method: http.MethodPut, path: "/api/resource/" + doctype + "/" + name,
		rawPath: resourcePath(doctype, name), body: fields, key: "data", out: out})
}

// Call runs POST /api/method/{method} with args as the JSON body (nil sends {}) and decodes
// "message" into out, which may be nil. A function returning None answers {} and leaves out
// untouched.
func (c *Client) Call(ctx context.Context, method string, args any, out any) error {
	if method == "" {
		return errors.New("frappe: Call: empty method")
	}
	if args == nil {
		args = struct{}{}
	}
	return c.do(ctx, call{method: http.MethodPost, path: "/api/method/" + method,
		rawPath: "/api/method/" + url.PathEscape(method), body: args, key: "message", keyOpt: true, out: out})
}

// CallGET runs GET /api/method/{method}?args and decodes "message" into out, which may be nil.
// Frappe rolls back whatever a GET wrote (spec/erpnext.md §2.1), so use it for reads only.
func (c *Client) CallGET(ctx context.Context, method string, args map[string]string, out any) error {
	if method == "" {
		return errors.New("frappe: CallGET: empty method")
	}
	q := url.Values{}
	for k, v := range args {
		q.Set(k, v)
	}
	return c.do(ctx, call{method: http.MethodGet, path: "/api/method/" + method,
		rawPath: "/api/method/" + url.PathEscape(method), query: q, key: "message", keyOpt: true, out: out})
}

// MethodGetLoggedUser is the whitelisted method Ping calls.
const MethodGetLoggedUser = "frappe.auth.get_logged_user"

// MethodHasPermission is Frappe's frappe.client.has_permission: args doctype, docname and
// perm_type ("read", "create", "submit", …); "message" is {"has_permission": bool} by the
// user's roles (recorded erpnext-recorded-connector/R12). An empty docname asks about the
// doctype (frappe.has_permission without a document).
const MethodHasPermission = "frappe.client.has_permission"

// Ping checks that the site answers and accepts the credentials: GET
// /api/method/frappe.auth.get_logged_user. A bad key or secret is an *Error with Status 401
// (403 when the user may not call it); an unreachable site a *TransportError.
func (c *Client) Ping(ctx context.Context) error {
	var user string
	return c.CallGET(ctx, MethodGetLoggedUser, nil, &user)
}

// resourcePath escapes /api/resource/{doctype}[/{name}] for the wire: spaces become %20 and
// other reserved characters are escaped, but a "/" inside name stays a path separator because
// Frappe routes names as <path:name> (spec/erpnext.md §1.1).
func resourcePath(doctype, name string) string {
	p := "/api/resource/" + url.PathEscape(doctype)
	if name == "" {
		return p
	}
	parts := strings.Split(name, "/")
	for i, part := range parts {
		parts[i] = url.PathEscape(part)
	}
	return p + "/" + strings.Join(parts, "/")
}
