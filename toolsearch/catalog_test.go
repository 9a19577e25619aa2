package toolsearch_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// The test catalog: 20 domains, 10 kinds of record in each and 25 verbs,
// 5,000 tools whose IDs, labels and descriptions read like a large
// company's internal services.
var domains = []struct {
	name, system string
	records      []string
}{
	{"billing", "billing system", []string{"invoice", "payment", "refund", "credit note", "subscription", "price", "coupon", "tax rate", "dunning notice", "receipt"}},
	{"crm", "customer database", []string{"customer", "contact", "lead", "deal", "account", "note", "call log", "meeting", "pipeline", "segment"}},
	{"hr", "people system", []string{"employee", "leave request", "payslip", "review", "position", "candidate", "interview", "offer", "timesheet", "benefit"}},
	{"inventory", "warehouse system", []string{"product", "stock level", "warehouse", "shipment", "supplier", "purchase order", "bin", "barcode", "stock count", "return"}},
	{"support", "help desk", []string{"ticket", "reply", "macro", "agent", "queue", "sla", "satisfaction survey", "knowledge article", "escalation", "tag"}},
	{"cms", "website", []string{"page", "article", "image", "menu", "redirect", "author", "category", "comment", "revision", "translation"}},
	{"devops", "deployment platform", []string{"service", "deployment", "build", "release", "incident", "alert", "runbook", "secret", "cluster", "log stream"}},
	{"finance", "ledger", []string{"journal entry", "budget", "expense", "account code", "forecast", "bank transfer", "reconciliation", "cost center", "asset", "vendor bill"}},
	{"marketing", "campaign tool", []string{"campaign", "email template", "audience", "landing page", "ad", "newsletter", "utm link", "survey", "event", "webinar"}},
	{"calendar", "scheduling system", []string{"appointment", "room", "booking", "availability", "reminder", "holiday", "shift", "attendee", "recurring event", "time zone"}},
	{"music", "music catalog", []string{"album", "track", "artist", "playlist", "label", "genre", "lyric", "royalty statement", "release date", "cover art"}},
	{"school", "learning system", []string{"course", "lesson", "student", "grade", "assignment", "quiz", "teacher", "classroom", "enrollment", "certificate"}},
	{"health", "clinic system", []string{"patient", "prescription", "lab result", "visit", "doctor", "insurance claim", "allergy", "vaccination", "referral", "bed"}},
	{"travel", "booking engine", []string{"flight", "hotel", "itinerary", "traveler", "visa", "car rental", "seat", "loyalty card", "fare", "baggage"}},
	{"legal", "contract system", []string{"contract", "clause", "signature", "matter", "court date", "license", "policy", "consent", "trademark", "dispute"}},
	{"iot", "device fleet", []string{"device", "sensor reading", "firmware", "gateway", "threshold", "telemetry", "location", "battery", "command", "maintenance window"}},
	{"security", "access system", []string{"user", "role", "permission", "api key", "audit entry", "session", "password reset", "mfa device", "ip allowlist", "certificate"}},
	{"data", "data warehouse", []string{"table", "query", "dashboard", "report", "dataset", "pipeline run", "schema", "metric", "export job", "data source"}},
	{"social", "community site", []string{"post", "follower", "message", "group", "reaction", "profile", "mention", "hashtag", "report flag", "badge"}},
	{"food", "restaurant system", []string{"order", "menu item", "table booking", "recipe", "ingredient", "delivery", "kitchen ticket", "allergen", "discount", "review"}},
}

var verbs = []struct {
	id, label, op, text string
}{
	{"list", "List", "read", "Lists the %[2]ss of the %[1]s, newest first, with paging."},
	{"get", "Get", "read", "Shows one %[2]s of the %[1]s with every detail."},
	{"create", "Create", "write", "Creates a new %[2]s in the %[1]s."},
	{"update", "Update", "write", "Changes the fields of an existing %[2]s in the %[1]s."},
	{"delete", "Delete", "write", "Deletes a %[2]s from the %[1]s for good."},
	{"search", "Search", "read", "Finds %[2]ss in the %[1]s whose text contains the given words."},
	{"export", "Export", "read", "Exports %[2]ss from the %[1]s to a CSV or JSON file for download."},
	{"import", "Import", "write", "Imports %[2]ss into the %[1]s from an uploaded CSV file."},
	{"archive", "Archive", "write", "Archives a %[2]s in the %[1]s so it no longer shows in lists."},
	{"restore", "Restore", "write", "Restores an archived or deleted %[2]s in the %[1]s."},
	{"approve", "Approve", "write", "Approves a pending %[2]s in the %[1]s."},
	{"reject", "Reject", "write", "Rejects a pending %[2]s in the %[1]s with a reason."},
	{"assign", "Assign", "write", "Assigns a %[2]s in the %[1]s to a person or team."},
	{"unassign", "Unassign", "write", "Removes the person or team a %[2]s in the %[1]s is assigned to."},
	{"count", "Count", "read", "Counts the %[2]ss in the %[1]s, grouped by status."},
	{"summarize", "Summarize", "transform", "Writes a short summary of a %[2]s in the %[1]s for a busy reader."},
	{"publish", "Publish", "write", "Publishes a %[2]s of the %[1]s so everyone can see it."},
	{"unpublish", "Unpublish", "write", "Hides a published %[2]s of the %[1]s from the public."},
	{"duplicate", "Duplicate", "write", "Makes a copy of a %[2]s in the %[1]s."},
	{"merge", "Merge", "write", "Merges two duplicate %[2]ss of the %[1]s into one."},
	{"tag", "Tag", "write", "Adds labels to a %[2]s in the %[1]s."},
	{"untag", "Untag", "write", "Removes labels from a %[2]s in the %[1]s."},
	{"comment", "Comment", "write", "Adds an internal comment to a %[2]s in the %[1]s."},
	{"notify", "Notify", "trigger", "Sends an email and chat notification about a %[2]s of the %[1]s to its watchers."},
	{"schedule", "Schedule", "write", "Schedules a %[2]s of the %[1]s for a later date and time."},
}

// catalog returns the 5,000 test tools; those of the domains in secret
// need the permission "secret".
func catalog(secret ...string) []*tool.Tool {
	var out []*tool.Tool
	for _, d := range domains {
		perm := "access content"
		for _, s := range secret {
			if s == d.name {
				perm = "secret"
			}
		}
		for _, rec := range d.records {
			for _, v := range verbs {
				out = append(out, &tool.Tool{
					ID:          d.name + "." + v.id + "_" + strings.ReplaceAll(rec, " ", "_"),
					Label:       v.label + " " + rec,
					Description: fmt.Sprintf(v.text, d.system, rec),
					Operation:   tool.Operation(v.op),
					Permission:  perm,
					Inputs: []*tool.Definition{{
						Name: "id", Type: "string", Required: true,
						Description: "The ID of the " + rec + ".",
					}},
					Handler: func(context.Context, *tool.Values) (*tool.Result, error) {
						return tool.Succeeded("", nil), nil
					},
				})
			}
		}
	}
	return out
}

// queries are requests in the words a person or model would use, each with
// the tool that serves it.
var queries = []struct{ query, want string }{
	{"give the customer their money back for a refund", "billing.create_refund"},
	{"show me a specific invoice", "billing.get_invoice"},
	{"cancel a subscription", "billing.delete_subscription"},
	{"find leads mentioning solar panels", "crm.search_lead"},
	{"move a deal to another sales person", "crm.assign_deal"},
	{"merge two duplicate contacts", "crm.merge_contact"},
	{"approve a leave request", "hr.approve_leave_request"},
	{"hire: make an offer to a candidate", "hr.create_offer"},
	{"how many employees do we have by status", "hr.count_employee"},
	{"receive a shipment in the warehouse", "inventory.update_shipment"},
	{"export the stock levels to csv", "inventory.export_stock_level"},
	{"reorder from a supplier with a purchase order", "inventory.create_purchase_order"},
	{"escalate a help desk ticket to a team", "support.assign_ticket"},
	{"reply to a ticket", "support.create_reply"},
	{"summarize a long support ticket", "support.summarize_ticket"},
	{"publish an article on the website", "cms.publish_article"},
	{"add a redirect for an old page", "cms.create_redirect"},
	{"translate a page: create a translation", "cms.create_translation"},
	{"roll out a deployment of a service", "devops.create_deployment"},
	{"page the on-call people about an incident", "devops.notify_incident"},
	{"rotate a secret", "devops.update_secret"},
	{"book an expense", "finance.create_expense"},
	{"reconcile the bank account: approve a reconciliation", "finance.approve_reconciliation"},
	{"send a newsletter later", "marketing.schedule_newsletter"},
	{"duplicate an email template", "marketing.duplicate_email_template"},
	{"book a meeting room", "calendar.create_booking"},
	{"remind attendees about an appointment", "calendar.notify_appointment"},
	{"add a track to an album", "music.create_track"},
	{"find songs on a playlist: search tracks", "music.search_track"},
	{"publish an album", "music.publish_album"},
	{"grade a student's assignment", "school.update_grade"},
	{"enroll a student in a course", "school.create_enrollment"},
	{"renew a prescription for a patient", "health.update_prescription"},
	{"list the lab results", "health.list_lab_result"},
	{"change a traveler's seat on a flight", "travel.update_seat"},
	{"cancel a hotel reservation", "travel.delete_hotel"},
	{"sign a contract: add a signature", "legal.create_signature"},
	{"push new firmware to the device fleet", "iot.publish_firmware"},
	{"revoke an api key", "security.delete_api_key"},
	{"reset a user's password", "security.create_password_reset"},
	{"build a dashboard in the data warehouse", "data.create_dashboard"},
	{"run a query and export the results", "data.export_query"},
	{"delete a spam post from the community", "social.delete_post"},
	{"award a badge to a member", "social.create_badge"},
	{"take a restaurant order for delivery", "food.create_order"},
	{"which dishes contain an allergen", "food.search_allergen"},
}
