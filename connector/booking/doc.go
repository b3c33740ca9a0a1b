// Package booking books one Account's events into ERPNext exactly once (DESIGN.md §4 steps
// 3–7). New builds it from connector.BookingDeps as the connector.Booker the worker and Explain
// call: one job per route on one kernel.
//
// Every job runs on the kernel of connector/kernel (claims, document locks, what is known of
// the site, lookup before create, apply) and holds what else it uses (jobs.go):
//
//   - receipt (receipt.go, decide.go, resolve.go, invoice.go, customer.go, entry.go, build.go,
//     fields.go), with ERPNext's own checkout as its checkout stage (checkout.go);
//   - refund (refund.go, receipt_of.go), with a failed refund's void as its void stage (void.go);
//   - dispute (route.go), parked for a person;
//   - settlement, a package of its own (connector/settlement), given the same kernel.
//
// route.go dispatches a parsed event to its route's job (Book) and explain.go runs the same
// steps as a dry run (Decide): the claim read instead of taken, no lock taken, nothing written.
// Every job reads the Account it is given, never the global Config.
package booking
