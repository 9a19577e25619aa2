package mcpserver

import "time"

// SetClock makes s read the time of its request states from now.
func SetClock(s *Server, now func() time.Time) { s.now = now }
