package erpnextsim

import (
	"encoding/json"
	"strings"
)

// System Settings, a Single doctype readable only by System Manager (recordings 54-*).
// For the API user GET /api/resource/System Settings/System Settings is the document-read
// denial (403, role message + "<br>User … does not have access to this document");
// frappe.client.get_value and frappe.client.get_single_value throw 403 "No permission for
// System Settings". A System Manager (Options.Users) reads the recorded values:
// currency_precision "" (so 2 from number_format "#,##,###.##"), float_precision "3",
// rounding_method "Banker's Rounding", time_zone Asia/Kolkata, currency INR.

const systemSettingsDT = "System Settings"

const getSingleValueCmd = "frappe.client.get_single_value"

// systemSettingsValues is the recorded document's body without its standard fields, in field
// order: numbers become Int columns, strings Data columns.
const systemSettingsValues = `{"app_name":"ERPNext","country":"India","language":"en","time_zone":"Asia/Kolkata","currency":"INR",
"enable_onboarding":1,"setup_complete":0,"disable_document_sharing":0,"date_format":"dd-mm-yyyy","time_format":"HH:mm:ss",
"number_format":"#,##,###.##","use_number_format_from_currency":0,"first_day_of_the_week":"Sunday","float_precision":"3",
"currency_precision":"","rounding_method":"Banker's Rounding","apply_strict_user_permissions":0,"allow_older_web_view_links":0,
"session_expiry":"170:00","document_share_key_expiry":30,"deny_multiple_sessions":0,"disable_user_pass_login":0,
"allow_login_using_mobile_number":0,"allow_login_using_user_name":0,"login_with_email_link":1,"login_with_email_link_expiry":10,
"rate_limit_email_link_login":0,"allow_consecutive_login_attempts":10,"allow_login_after_fail":60,"enable_two_factor_auth":0,
"bypass_2fa_for_retricted_ip_users":0,"bypass_restrict_ip_check_if_2fa_enabled":0,"two_factor_method":"OTP App",
"lifespan_qrcode_image":0,"otp_issuer_name":"Frappe Framework","logout_on_password_reset":1,"force_user_to_reset_password":0,
"reset_password_link_expiry_duration":"1200","password_reset_limit":3,"enable_password_policy":1,"minimum_password_score":"2",
"email_retry_limit":3,"disable_standard_email_footer":0,"hide_footer_in_auto_email_reports":0,"attach_view_link":1,
"store_attached_pdf_document":1,"max_file_size":0,"allow_guests_to_upload_files":0,"force_web_capture_mode_for_uploads":0,
"strip_exif_metadata_from_uploaded_images":1,"disable_system_update_notification":0,"disable_change_log_notification":0,
"backup_limit":3,"encrypt_backup":0,"max_auto_email_report_per_user":20,"max_report_rows":100000,"enable_scheduler":1,
"dormant_days":4,"allow_error_traceback":1,"enable_telemetry":0,"link_field_results_limit":10}`

// systemSettingsDefaults holds the parsed values, in order.
var systemSettingsDefaults []kv

func init() {
	d := json.NewDecoder(strings.NewReader(systemSettingsValues))
	d.UseNumber()
	if _, err := d.Token(); err != nil {
		panic(err)
	}
	var spec strings.Builder
	for d.More() {
		t, _ := d.Token()
		k := t.(string)
		v, _ := d.Token()
		typ := "Data"
		if n, ok := v.(json.Number); ok {
			typ = "Int"
			i, _ := n.Int64()
			v = i
		}
		systemSettingsDefaults = append(systemSettingsDefaults, kv{k, v})
		spec.WriteString(k + "|" + typ + "|" + k + "||\n")
	}
	register(systemSettingsDT, spec.String(), nil)
}

// singles are the Single doctypes the simulator models (one document named like the doctype).
func isSingle(dt string) bool { return dt == systemSettingsDT || dt == accountsSettings }

func (ac *accounts) setupSystemSettings() {
	r := newRecord(systemSettingsDT)
	for _, e := range systemSettingsDefaults {
		r.f[e.k] = e.v
	}
	ac.db.stampNew(r, systemSettingsDT, admin)
	delete(r.f, "creation") // singles have no creation column (recording 54-system-settings-get-system-manager)
	r.f["idx"] = "0"        // and come back with idx as text
	ac.db.put(r)
}

// noPermissionThrow is the 403 frappe.client.get_value / get_single_value raise when the user
// may not read the doctype (recordings 54-system-settings-get-value-api-user,
// 54-get-system-settings-method-api-user): a throw, not the role-permission msgprint.
func noPermissionThrow(dt string) *fErr {
	return throw("No permission for " + dt).as("PermissionError").status403()
}

// getSingleValue is frappe.client.get_single_value(doctype, field): read permission on the
// doctype, then the stored value (null when unset).
func (ac *accounts) getSingleValue(c *call) (*fErr, step) {
	dt, field := c.str("doctype"), c.str("field")
	if metas[dt] == nil {
		return doctypeError(c, dt, "read"), nil
	}
	if !ac.users.can(c.user, dt, "read") {
		return noPermissionThrow(dt), nil
	}
	if !isSingle(dt) {
		return notModelled("get_single_value of " + dt + ", not a Single"), nil
	}
	if !metas[dt].hasColumn(field) {
		return notModelled("get_single_value of an unknown field " + field), nil
	}
	r := ac.db.get(dt, dt)
	return nil, func() any { return r.value(field) }
}
