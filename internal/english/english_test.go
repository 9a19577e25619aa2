package english_test

import (
	"testing"

	"github.com/toolapi/toolapi/internal/english"
)

func TestWithArticle(t *testing.T) {
	tests := []struct{ noun, want string }{
		// By the first letter.
		{"album", "an album"},
		{"image", "an image"},
		{"Order", "an Order"},
		{"entry", "an entry"},
		{"photo", "a photo"},
		{"track", "a track"},
		{"", "a "},
		// u spoken "you".
		{"user", "a user"},
		{"User", "a User"},
		{"UserProfile", "a UserProfile"},
		{"unit", "a unit"},
		{"union", "a union"},
		{"unique_code", "a unique_code"},
		{"usage", "a usage"},
		{"usual", "a usual"},
		{"utility", "a utility"},
		{"utensil", "a utensil"},
		{"uranium", "a uranium"},
		{"uri", "a uri"},
		{"URL", "a URL"},
		{"uuid", "a uuid"},
		{"ubiquitous", "a ubiquitous"},
		{"Ukrainian", "a Ukrainian"},
		{"UFO", "a UFO"},
		{"European", "a European"},
		{"euro", "a euro"},
		// u spoken as a vowel.
		{"umbrella", "an umbrella"},
		{"update", "an update"},
		{"uninstall", "an uninstall"},
		{"unimportant", "an unimportant"},
		{"urgent", "an urgent"},
		{"urn", "an urn"},
		{"utter", "an utter"},
		{"upload", "an upload"},
		// one spoken "won".
		{"one-time", "a one-time"},
		{"onetime_code", "a onetime_code"},
		{"onerous", "an onerous"},
		{"owner", "an owner"},
		// A silent h.
		{"hour", "an hour"},
		{"HourlyRate", "an HourlyRate"},
		{"honest", "an honest"},
		{"honour", "an honour"},
		{"honorific", "an honorific"},
		{"heir", "an heir"},
		{"house", "a house"},
		{"hotel", "a hotel"},
	}
	for _, tt := range tests {
		if got := english.WithArticle(tt.noun); got != tt.want {
			t.Errorf("WithArticle(%q) = %q, want %q", tt.noun, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "character", "1 character"},
		{0, "character", "0 characters"},
		{2, "item", "2 items"},
		{1, "property", "1 property"},
		{3, "property", "3 properties"},
		{2, "day", "2 days"},
		{2, "match", "2 matches"},
		{2, "box", "2 boxes"},
	} {
		if got := english.Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
