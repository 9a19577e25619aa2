package main

import (
	"context"

	"github.com/toolapi/toolapi/tool"
)

// The account a run is for travels in its context, put there by whoever
// calls the tool (the CLI, the MCP server, a test). These helpers are the
// services' one window on it.

// accountFrom returns the account ctx carries.
func accountFrom(ctx context.Context) tool.Account { return tool.AccountFrom(ctx) }

// viewerFrom returns who ctx says is looking at albums.
func viewerFrom(ctx context.Context) viewer {
	acct := accountFrom(ctx)
	if acct.Blocked() {
		return viewer{userID: -1}
	}
	v := viewer{all: acct.HasPermission(permEditAnyAlbum)}
	if u, ok := acct.(*User); ok {
		v.userID = u.ID
	}
	return v
}

// ownerID returns the user ID of acct, or 0 when it is no user of the site.
func ownerID(acct tool.Account) int64 {
	if u, ok := acct.(*User); ok {
		return u.ID
	}
	return 0
}

// mayAlbum reports whether acct may perform op on album a:
//   - view: the album is published, or acct owns it, or may edit any album;
//   - update, delete: acct owns it and may edit albums, or may edit any album.
//
// A blocked account may do nothing, and other ops are denied.
func mayAlbum(acct tool.Account, a *Album, op string) bool {
	if acct == nil || acct.Blocked() {
		return false
	}
	own := a.OwnerID != 0 && a.OwnerID == ownerID(acct)
	editAny := acct.HasPermission(permEditAnyAlbum)
	switch op {
	case "view":
		return editAny || own || (a.Published && acct.HasPermission(permAccessContent))
	case "update", "delete":
		return editAny || (own && acct.HasPermission(permEditAlbums))
	}
	return false
}
