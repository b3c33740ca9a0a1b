package erpnextsim

// Field tables of the modelled doctypes. Payment Entry and its child tables
// follow reference/erpnext-doctypes/*.json (v15); Sales Invoice and its child
// tables list the columns of the recorded v15.71 site (recording 06-*).

var paymentEntryFields = `
naming_series|Select|Series||r
payment_type|Select|Payment Type||r
posting_date|Date|Posting Date||r
company|Link|Company|Company|rf
cost_center|Link|Cost Center|Cost Center|s
mode_of_payment|Link|Mode of Payment|Mode of Payment|
party_type|Link|Party Type|DocType|
party|Dynamic Link|Party|party_type|
party_name|Data|Party Name||s
contact_person|Link|Contact|Contact|
contact_email|Data|Email||
party_balance|Currency|Party Balance||s
paid_from|Link|Account Paid From|Account|rf
paid_from_account_currency|Link|Account Currency (From)|Currency|r
paid_from_account_balance|Currency|Account Balance (From)||s
paid_to|Link|Account Paid To|Account|rf
paid_to_account_currency|Link|Account Currency (To)|Currency|r
paid_to_account_balance|Currency|Account Balance (To)||s
paid_amount|Currency|Paid Amount||r
source_exchange_rate|Float|Source Exchange Rate||r
base_paid_amount|Currency|Paid Amount (Company Currency)||r
received_amount|Currency|Received Amount||r
target_exchange_rate|Float|Target Exchange Rate||r
base_received_amount|Currency|Received Amount (Company Currency)||r
references|Table|Payment References|Payment Entry Reference|
total_allocated_amount|Currency|Total Allocated Amount||
base_total_allocated_amount|Currency|Total Allocated Amount (Company Currency)||
unallocated_amount|Currency|Unallocated Amount||
difference_amount|Currency|Difference Amount (Company Currency)||
deductions|Table|Payment Deductions or Loss|Payment Entry Deduction|
reference_no|Data|Cheque/Reference No||
reference_date|Date|Cheque/Reference Date||
clearance_date|Date|Clearance Date||
project|Link|Project|Project|s
remarks|Small Text|Remarks||
letter_head|Link|Letter Head|Letter Head|
print_heading|Link|Print Heading|Print Heading|
bank|Data|Bank||
bank_account_no|Data|Bank Account No||
payment_order|Link|Payment Order|Payment Order|
auto_repeat|Link|Auto Repeat|Auto Repeat|s
amended_from|Link|Amended From|Payment Entry|
title|Data|Title||
bank_account|Link|Company Bank Account|Bank Account|f
party_bank_account|Link|Party Bank Account|Bank Account|
payment_order_status|Select|Payment Order Status||
status|Select|Status||
custom_remarks|Check|Custom Remarks||
tax_withholding_category|Link|Tax Withholding Category|Tax Withholding Category|
apply_tax_withholding_amount|Check|Apply Tax Withholding Amount||
purchase_taxes_and_charges_template|Link|Purchase Taxes and Charges Template|Purchase Taxes and Charges Template|
sales_taxes_and_charges_template|Link|Sales Taxes and Charges Template|Sales Taxes and Charges Template|
taxes|Table|Advance Taxes and Charges|Advance Taxes and Charges|
base_total_taxes_and_charges|Currency|Total Taxes and Charges (Company Currency)||
total_taxes_and_charges|Currency|Total Taxes and Charges||
paid_amount_after_tax|Currency|Paid Amount After Tax||
base_paid_amount_after_tax|Currency|Paid Amount After Tax (Company Currency)||
received_amount_after_tax|Currency|Received Amount After Tax||
base_received_amount_after_tax|Currency|Received Amount After Tax (Company Currency)||
paid_from_account_type|Data|Paid From Account Type||
paid_to_account_type|Data|Paid To Account Type||
book_advance_payments_in_separate_party_account|Check|Book Advance Payments in Separate Party Account||
base_in_words|Small Text|In Words (Company Currency)||
in_words|Small Text|In Words||
reconcile_on_advance_payment_date|Check|Reconcile on Advance Payment Date||
is_opening|Select|Is Opening||
`
var paymentEntryReferenceFields = `
reference_doctype|Link|Type|DocType|r
reference_name|Dynamic Link|Name|reference_doctype|r
due_date|Date|Due Date||
bill_no|Data|Supplier Invoice No||
total_amount|Currency|Grand Total||
outstanding_amount|Currency|Outstanding||
allocated_amount|Currency|Allocated||
exchange_rate|Float|Exchange Rate||
payment_term|Link|Payment Term|Payment Term|
exchange_gain_loss|Currency|Exchange Gain/Loss||
account|Link|Account|Account|
account_type|Data|Account Type||
payment_type|Data|Payment Type||
payment_request|Link|Payment Request|Payment Request|
payment_term_outstanding|Float|Payment Term Outstanding||
payment_request_outstanding|Float|Payment Request Outstanding||
reconcile_effect_on|Date|Reconcile Effect On||
`
var paymentEntryDeductionFields = `
account|Link|Account|Account|r
cost_center|Link|Cost Center|Cost Center|rs
amount|Currency|Amount (Company Currency)||r
description|Small Text|Description||
is_exchange_gain_loss|Check|Is Exchange Gain / Loss?||
`
var modeOfPaymentAccountFields = `
company|Link|Company|Company|
default_account|Link|Default Account|Account|
`
var salesInvoiceFields = `
title|Data|Title||
naming_series|Data|Naming Series||
customer|Link|Customer|Customer|
customer_name|Data|Customer Name||
tax_id|Data|Tax Id||
company|Link|Company|Company|
company_tax_id|Data|Company Tax Id||
posting_date|Date|Posting Date||
posting_time|Time|Posting Time||
set_posting_time|Int|Set Posting Time||
due_date|Date|Due Date||
is_pos|Int|Is Pos||
pos_profile|Data|Pos Profile||
is_consolidated|Int|Is Consolidated||
is_return|Int|Is Return||
return_against|Link|Return Against|Sales Invoice|
update_outstanding_for_self|Int|Update Outstanding For Self||
update_billed_amount_in_sales_order|Int|Update Billed Amount In Sales Order||
update_billed_amount_in_delivery_note|Int|Update Billed Amount In Delivery Note||
is_debit_note|Int|Is Debit Note||
amended_from|Link|Amended From|Sales Invoice|
cost_center|Link|Cost Center|Cost Center|
project|Data|Project||
currency|Link|Currency|Currency|
conversion_rate|Float|Conversion Rate||
selling_price_list|Data|Selling Price List||
price_list_currency|Link|Price List Currency|Currency|
plc_conversion_rate|Float|Plc Conversion Rate||
ignore_pricing_rule|Int|Ignore Pricing Rule||
scan_barcode|Data|Scan Barcode||
update_stock|Int|Update Stock||
set_warehouse|Data|Set Warehouse||
set_target_warehouse|Data|Set Target Warehouse||
total_qty|Float|Total Qty||
total_net_weight|Currency|Total Net Weight||
base_total|Currency|Base Total||
base_net_total|Currency|Base Net Total||
total|Currency|Total||
net_total|Currency|Net Total||
tax_category|Data|Tax Category||
taxes_and_charges|Data|Taxes And Charges||
shipping_rule|Data|Shipping Rule||
incoterm|Data|Incoterm||
named_place|Data|Named Place||
base_total_taxes_and_charges|Currency|Base Total Taxes And Charges||
total_taxes_and_charges|Currency|Total Taxes And Charges||
base_grand_total|Currency|Base Grand Total||
base_rounding_adjustment|Currency|Base Rounding Adjustment||
base_rounded_total|Currency|Base Rounded Total||
base_in_words|Data|Base In Words||
grand_total|Currency|Grand Total||
rounding_adjustment|Currency|Rounding Adjustment||
use_company_roundoff_cost_center|Int|Use Company Roundoff Cost Center||
rounded_total|Currency|Rounded Total||
in_words|Data|In Words||
total_advance|Currency|Total Advance||
outstanding_amount|Currency|Outstanding Amount||
disable_rounded_total|Int|Disable Rounded Total||
apply_discount_on|Data|Apply Discount On||
base_discount_amount|Currency|Base Discount Amount||
is_cash_or_non_trade_discount|Int|Is Cash Or Non Trade Discount||
additional_discount_account|Data|Additional Discount Account||
additional_discount_percentage|Currency|Additional Discount Percentage||
discount_amount|Currency|Discount Amount||
other_charges_calculation|Data|Other Charges Calculation||
total_billing_hours|Currency|Total Billing Hours||
total_billing_amount|Currency|Total Billing Amount||
cash_bank_account|Data|Cash Bank Account||
base_paid_amount|Currency|Base Paid Amount||
paid_amount|Currency|Paid Amount||
base_change_amount|Currency|Base Change Amount||
change_amount|Currency|Change Amount||
account_for_change_amount|Data|Account For Change Amount||
allocate_advances_automatically|Int|Allocate Advances Automatically||
only_include_allocated_payments|Int|Only Include Allocated Payments||
write_off_amount|Currency|Write Off Amount||
base_write_off_amount|Currency|Base Write Off Amount||
write_off_outstanding_amount_automatically|Int|Write Off Outstanding Amount Automatically||
write_off_account|Data|Write Off Account||
write_off_cost_center|Data|Write Off Cost Center||
redeem_loyalty_points|Int|Redeem Loyalty Points||
loyalty_points|Int|Loyalty Points||
loyalty_amount|Currency|Loyalty Amount||
loyalty_program|Data|Loyalty Program||
loyalty_redemption_account|Data|Loyalty Redemption Account||
loyalty_redemption_cost_center|Data|Loyalty Redemption Cost Center||
customer_address|Data|Customer Address||
address_display|Data|Address Display||
contact_person|Data|Contact Person||
contact_display|Data|Contact Display||
contact_mobile|Data|Contact Mobile||
contact_email|Data|Contact Email||
territory|Data|Territory||
shipping_address_name|Data|Shipping Address Name||
shipping_address|Data|Shipping Address||
dispatch_address_name|Data|Dispatch Address Name||
dispatch_address|Data|Dispatch Address||
company_address|Data|Company Address||
company_address_display|Data|Company Address Display||
company_contact_person|Data|Company Contact Person||
ignore_default_payment_terms_template|Int|Ignore Default Payment Terms Template||
payment_terms_template|Link|Payment Terms Template|Payment Terms Template|
tc_name|Data|Tc Name||
terms|Data|Terms||
po_no|Data|Po No||
po_date|Date|Po Date||
debit_to|Link|Debit To|Account|
party_account_currency|Link|Party Account Currency|Currency|
is_opening|Data|Is Opening||
unrealized_profit_loss_account|Data|Unrealized Profit Loss Account||
against_income_account|Small Text|Against Income Account||
sales_partner|Data|Sales Partner||
amount_eligible_for_commission|Currency|Amount Eligible For Commission||
commission_rate|Currency|Commission Rate||
total_commission|Currency|Total Commission||
letter_head|Data|Letter Head||
group_same_items|Int|Group Same Items||
select_print_heading|Data|Select Print Heading||
language|Data|Language||
subscription|Data|Subscription||
from_date|Date|From Date||
auto_repeat|Data|Auto Repeat||
to_date|Date|To Date||
status|Select|Status||
inter_company_invoice_reference|Data|Inter Company Invoice Reference||
campaign|Data|Campaign||
represents_company|Data|Represents Company||
source|Data|Source||
customer_group|Data|Customer Group||
is_internal_customer|Int|Is Internal Customer||
is_discounted|Int|Is Discounted||
remarks|Data|Remarks||
taxes|Table||Sales Taxes and Charges|
timesheets|Table||Sales Invoice Timesheet|
packed_items|Table||Packed Item|
payments|Table||Sales Invoice Payment|
items|Table||Sales Invoice Item|
advances|Table||Sales Invoice Advance|
payment_schedule|Table||Payment Schedule|
sales_team|Table||Sales Team|
pricing_rules|Table||Pricing Rule Detail|
`
var salesInvoiceItemFields = `
barcode|Data|Barcode||
has_item_scanned|Int|Has Item Scanned||
item_code|Data|Item Code||
item_name|Data|Item Name||
customer_item_code|Data|Customer Item Code||
description|Data|Description||
item_group|Data|Item Group||
brand|Data|Brand||
image|Data|Image||
qty|Float|Qty||
stock_uom|Data|Stock Uom||
uom|Data|Uom||
conversion_factor|Float|Conversion Factor||
stock_qty|Float|Stock Qty||
price_list_rate|Currency|Price List Rate||
base_price_list_rate|Currency|Base Price List Rate||
margin_type|Data|Margin Type||
margin_rate_or_amount|Currency|Margin Rate Or Amount||
rate_with_margin|Currency|Rate With Margin||
discount_percentage|Currency|Discount Percentage||
discount_amount|Currency|Discount Amount||
distributed_discount_amount|Currency|Distributed Discount Amount||
base_rate_with_margin|Currency|Base Rate With Margin||
rate|Currency|Rate||
amount|Currency|Amount||
item_tax_template|Data|Item Tax Template||
base_rate|Currency|Base Rate||
base_amount|Currency|Base Amount||
pricing_rules|Data|Pricing Rules||
stock_uom_rate|Currency|Stock Uom Rate||
is_free_item|Int|Is Free Item||
grant_commission|Int|Grant Commission||
net_rate|Currency|Net Rate||
net_amount|Currency|Net Amount||
base_net_rate|Currency|Base Net Rate||
base_net_amount|Currency|Base Net Amount||
delivered_by_supplier|Int|Delivered By Supplier||
income_account|Link|Income Account|Account|
is_fixed_asset|Int|Is Fixed Asset||
asset|Data|Asset||
finance_book|Data|Finance Book||
expense_account|Link|Expense Account|Account|
discount_account|Data|Discount Account||
deferred_revenue_account|Data|Deferred Revenue Account||
service_stop_date|Date|Service Stop Date||
enable_deferred_revenue|Int|Enable Deferred Revenue||
service_start_date|Date|Service Start Date||
service_end_date|Date|Service End Date||
weight_per_unit|Currency|Weight Per Unit||
total_weight|Currency|Total Weight||
weight_uom|Data|Weight Uom||
warehouse|Data|Warehouse||
target_warehouse|Data|Target Warehouse||
quality_inspection|Data|Quality Inspection||
serial_and_batch_bundle|Data|Serial And Batch Bundle||
use_serial_batch_fields|Int|Use Serial Batch Fields||
allow_zero_valuation_rate|Int|Allow Zero Valuation Rate||
incoming_rate|Currency|Incoming Rate||
item_tax_rate|Data|Item Tax Rate||
actual_batch_qty|Currency|Actual Batch Qty||
serial_no|Data|Serial No||
batch_no|Data|Batch No||
actual_qty|Currency|Actual Qty||
company_total_stock|Currency|Company Total Stock||
sales_order|Data|Sales Order||
so_detail|Data|So Detail||
sales_invoice_item|Data|Sales Invoice Item||
delivery_note|Data|Delivery Note||
dn_detail|Data|Dn Detail||
delivered_qty|Currency|Delivered Qty||
pos_invoice|Data|Pos Invoice||
pos_invoice_item|Data|Pos Invoice Item||
purchase_order|Data|Purchase Order||
purchase_order_item|Data|Purchase Order Item||
cost_center|Link|Cost Center|Cost Center|
project|Data|Project||
page_break|Int|Page Break||
`
var paymentScheduleFields = `
payment_term|Link|Payment Term|Payment Term|
description|Data|Description||
due_date|Date|Due Date||
mode_of_payment|Link|Mode Of Payment|Mode of Payment|
invoice_portion|Float|Invoice Portion||
discount_type|Data|Discount Type||
discount_date|Date|Discount Date||
discount|Currency|Discount||
payment_amount|Currency|Payment Amount||
outstanding|Currency|Outstanding||
paid_amount|Currency|Paid Amount||
discounted_amount|Currency|Discounted Amount||
base_payment_amount|Currency|Base Payment Amount||
base_outstanding|Currency|Base Outstanding||
base_paid_amount|Currency|Base Paid Amount||
`
