package frappe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// DefaultListAllOrder is the order ListAll sends when ListOptions.OrderBy is empty: Frappe emits
// no ORDER BY unless asked (spec/erpnext.md §1.4), so pages of an unordered list can repeat or
// skip rows. Creation then name is stable and puts new documents last.
const DefaultListAllOrder = "creation asc, name asc"

// DefaultListAllPage is the page size ListAll uses when ListOptions.Limit is 0.
const DefaultListAllPage = 100

// ListAll lists every matching row of doctype into out (a pointer to a slice of structs or maps,
// as for List) by paging with limit_start until a page comes back short. It always sends
// order_by (opt.OrderBy, else DefaultListAllOrder); opt.Limit is the page size (default
// DefaultListAllPage); opt.Start and opt.All are ignored. Rows added or removed while paging can
// still shift pages; callers that need a snapshot filter on creation/modified.
func (c *Client) ListAll(ctx context.Context, doctype string, opt ListOptions, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Slice {
		return errors.New("frappe: ListAll: out must be a pointer to a slice")
	}
	if opt.OrderBy == "" {
		opt.OrderBy = DefaultListAllOrder
	}
	if opt.Limit <= 0 {
		opt.Limit = DefaultListAllPage
	}
	opt.All = false
	var rows []json.RawMessage
	for start := 0; ; start += opt.Limit {
		opt.Start = start
		var page []json.RawMessage
		if err := c.List(ctx, doctype, opt, &page); err != nil {
			return err
		}
		rows = append(rows, page...)
		if len(page) < opt.Limit {
			break
		}
	}
	if rows == nil {
		rows = []json.RawMessage{}
	}
	all, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("frappe: ListAll %s: %w", doctype, err)
	}
	dec := json.NewDecoder(bytes.NewReader(all))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("frappe: ListAll %s: decode: %w", doctype, err)
	}
	return nil
}
