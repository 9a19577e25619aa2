package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"strings"

	"github.com/toolapi/toolapi/tool"
)

// Site is the site's identity, shown in page headers and in the mail it
// sends.
//
//tool:config site
type Site struct {
	// Name is the site's name.
	Name string `json:"name,omitempty" tool:"name,length=1..100"`
	// Slogan is a short line shown under the name.
	Slogan string `json:"slogan,omitempty" tool:"slogan,length=0..200"`
	// Mail is the address the site sends mail from.
	Mail string `json:"mail,omitempty" tool:"mail,length=0..254"`
	// PageSize is how many albums a page of a listing shows.
	PageSize int `json:"page_size,omitempty"`
}

// check returns what is wrong with s as a whole, naming the key at fault,
// or nil.
func (s Site) check(input string) error {
	switch {
	case strings.TrimSpace(s.Name) == "":
		return tool.InputErrorf(input+".name", "must not be blank")
	case s.Mail != "" && !isAddress(s.Mail):
		return tool.InputErrorf(input+".mail", "must be a mail address such as site@example.com")
	case s.PageSize < 0 || s.PageSize > 200:
		return tool.InputErrorf(input+".page_size", "must be between 1 and 200")
	}
	return nil
}

func isAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

// SiteSettings reads and changes the site's configuration.
type SiteSettings struct {
	store *Store
}

// Info returns the site's name, slogan and contact address.
//
// Returns the site's settings.
//
//tool:method id=site.info op=read permission="access content" group=viewer
//tool:output site config=site
func (s *SiteSettings) Info(ctx context.Context) (Site, error) {
	var site Site
	_, err := s.store.Config(ctx, "site", &site)
	return site, err
}

// UpdateInfo changes some of the site's settings. Settings left out keep
// their stored values, so an update never wipes what it does not name.
//
//   - values: The settings to change, by name.
//
// Returns the site's settings as stored afterwards.
//
//tool:method id=site.update_info op=write destructive=false permission="administer site configuration"
//tool:input values config=site notblank
//tool:output site config=site
func (s *SiteSettings) UpdateInfo(ctx context.Context, values map[string]any) (Site, error) {
	var site Site
	err := s.store.UpdateConfig(ctx, "site", func(stored []byte) ([]byte, error) {
		merged := map[string]any{}
		if stored != nil {
			if err := json.Unmarshal(stored, &merged); err != nil {
				return nil, fmt.Errorf("stored site config: %w", err)
			}
		}
		for k, v := range values {
			merged[k] = v
		}
		raw, err := json.Marshal(merged)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&site); err != nil {
			return nil, tool.InputErrorf("values", "does not fit the site settings")
		}
		if err := site.check("values"); err != nil {
			return nil, err
		}
		return json.Marshal(site)
	})
	return site, err
}
