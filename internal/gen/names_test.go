package gen

import "testing"

func TestNames(t *testing.T) {
	tests := []struct{ in, snake, sentence, member string }{
		{"targetLangcode", "target_langcode", "Target langcode", "target_langcode"},
		{"TargetLangcode", "target_langcode", "Target langcode", "target_langcode"},
		{"URL", "url", "URL", "url"},
		{"ImageURL", "image_url", "Image URL", "image_url"},
		{"URLPath", "url_path", "URL path", "url_path"},
		{"AddTrack", "add_track", "Add track", "add_track"},
		{"ReleaseYear", "release_year", "Release year", "release_year"},
		{"GetReleaseYear", "get_release_year", "Get release year", "release_year"},
		{"IsExplicit", "is_explicit", "Is explicit", "explicit"},
		{"HasCover", "has_cover", "Has cover", "has_cover"},
		{"Island", "island", "Island", "island"},
		{"ID", "id", "ID", "id"},
		{"albumID", "album_id", "Album ID", "album_id"},
		{"trackCount", "track_count", "Track count", "track_count"},
		{"word", "word", "Word", "word"},
		{"v2Name", "v2_name", "V2 name", "v2_name"},
		{"snake_case", "snake_case", "Snake case", "snake_case"},
	}
	for _, tt := range tests {
		if got := snake(tt.in); got != tt.snake {
			t.Errorf("snake(%q) = %q, want %q", tt.in, got, tt.snake)
		}
		if got := sentence(tt.in); got != tt.sentence {
			t.Errorf("sentence(%q) = %q, want %q", tt.in, got, tt.sentence)
		}
		if got := memberName(tt.in); got != tt.member {
			t.Errorf("memberName(%q) = %q, want %q", tt.in, got, tt.member)
		}
	}
}
