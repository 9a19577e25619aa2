package oauth

import "time"

// SetClock makes rs read the time from now.
func SetClock(rs *ResourceServer, now func() time.Time) { rs.now = now }
