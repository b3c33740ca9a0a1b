package erpnextsim

import (
	"sort"
	"strings"
)

// comments is the Comment doctype and add_comment.
type comments struct {
	db    *store
	users *users
	links *links
}

// Comment (recordings 51-*). The Comment doctype is readable and creatable by System Manager
// only: for the API user POST /api/resource/Comment is the create denial (403, "No permission
// for Comment", no exception/exc keys) and GET /api/resource/Comment the list denial (403 with
// exception and _error_message). The desk's whitelisted
// frappe.desk.form.utils.add_comment (POST/PUT) needs only read permission on the referenced
// document and inserts the Comment itself, ignoring Comment permissions.

const commentDT = "Comment"

const addCommentCmd = "frappe.desk.form.utils.add_comment"

var commentFields = `
comment_type|Select|Comment Type||r
comment_email|Data|Comment Email||
subject|Text|Subject||
comment_by|Data|Comment By||
published|Check|Published||
seen|Check|Seen||
reference_doctype|Link|Reference Document Type|DocType|
reference_name|Dynamic Link|Reference Name|reference_doctype|
reference_owner|Data|Reference Owner||
content|HTML Editor|Content||
ip_address|Data|IP Address||
`

func init() {
	register(commentDT, commentFields, nil)
}

// addComment is frappe.desk.form.utils.add_comment(reference_doctype, reference_name, content,
// comment_email, comment_by) (recording 51-add-comment-whitelisted-method): all five are
// required Python parameters, so a missing one is a 500 TypeError (unrecorded); the reference
// must exist (404) and be readable by the user (403); the answer is the new Comment with nulls
// omitted: comment_type "Comment", published 0, seen 0, a random 10-character name.
// The content is stored as sent (Frappe's HTML sanitising is not modelled).
func (cms *comments) addComment(c *call) (*fErr, step) {
	params := []string{"reference_doctype", "reference_name", "content", "comment_email", "comment_by"}
	var missing []string
	for _, p := range params {
		if v, ok := c.args[p]; !ok || v == nil {
			missing = append(missing, "'"+p+"'")
		}
	}
	if len(missing) > 0 {
		return serverError("TypeError", "TypeError: add_comment() missing "+pyArgList(missing)), nil
	}
	dt, dn := c.str("reference_doctype"), c.str("reference_name")
	if metas[dt] == nil || metas[dt].child {
		if e := doctypeError(c, dt, "read"); e != nil {
			return e, nil
		}
	}
	ref := cms.db.get(dt, dn)
	if ref == nil {
		return notFound(dt, dn), nil
	}
	if !cms.users.can(c.user, dt, "read") {
		// Document.check_permission → raise_no_permission_to("read"); the exact 15.72 body is unrecorded.
		e := permissionDenied(c.userName(), dt, "read")
		e.errMsg = "No permission for " + dt
		return e, nil
	}
	cm := newRecord(commentDT)
	cm.f["comment_type"], cm.f["published"], cm.f["seen"] = "Comment", int64(0), int64(0)
	cm.f["reference_doctype"], cm.f["reference_name"] = metas[dt].name, ref.name()
	for _, k := range []string{"content", "comment_email", "comment_by"} {
		if v := str(c.args[k]); v != "" {
			cm.f[k] = v
		}
	}
	return nil, func() any {
		cms.db.stampNew(cm, hashName(), c.user)
		cms.db.put(cm)
		return cm.render(false)
	}
}

// pyArgList is Python's "missing N required positional argument(s): 'a', 'b' and 'c'".
func pyArgList(names []string) string {
	n := len(names)
	if n == 1 {
		return "1 required positional argument: " + names[0]
	}
	return itoa(n) + " required positional arguments: " + strings.Join(names[:n-1], ", ") + " and " + names[n-1]
}

// insertComment is POST /api/resource/Comment for a user allowed to create comments
// (System Manager): comment_type defaults to "Comment", comment_email to the user.
func (cms *comments) insertComment(c *call, body map[string]any) (*fErr, step) {
	cm := fromBody(commentDT, body, nil)
	setDefault(cm, "comment_type", "Comment")
	setDefault(cm, "comment_email", c.user)
	setDefault(cm, "published", int64(0))
	setDefault(cm, "seen", int64(0))
	if e := cms.links.validateLinks(cm, false); e != nil {
		return e, nil
	}
	return nil, func() any {
		cms.db.stampNew(cm, hashName(), c.user)
		cms.db.put(cm)
		return cm.render(c.keepNulls())
	}
}

// Comments returns the Comments on one document (reference_doctype/reference_name, the name
// compared case-insensitively) as GET /api/resource/Comment/{name} would render them, oldest
// first: those added by frappe.desk.form.utils.add_comment (recording 51-add-comment-whitelisted-method)
// or by a System Manager over REST.
func (s *Site) Comments(doctype, name string) []map[string]any {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	var rs []*record
	for _, r := range s.db.docs[commentDT] {
		if r.str("reference_doctype") == doctype && strings.EqualFold(r.str("reference_name"), name) {
			rs = append(rs, r)
		}
	}
	sortByCreation(rs)
	out := make([]map[string]any, 0, len(rs))
	for _, r := range rs {
		out = append(out, toPlain(r.render(false)).(map[string]any))
	}
	return out
}

func sortByCreation(rs []*record) {
	sort.Slice(rs, func(i, j int) bool {
		if a, b := rs[i].str("creation"), rs[j].str("creation"); a != b {
			return a < b
		}
		return rs[i].name() < rs[j].name()
	})
}
