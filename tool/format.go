package tool

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The format checks below follow the JSON Schema 2020-12 format
// definitions (RFC 3339 date-time and date, ISO 8601 duration, RFC 5321
// mailbox, RFC 3986 absolute URI) so that a value accepted here is valid
// against the advertised schema and the other way round.

// parseDateTime parses an RFC 3339 date-time into UTC. A leap second
// (23:59:60 in UTC) reads as the first second of the next minute.
func parseDateTime(s string) (time.Time, bool) {
	if len(s) < 20 || (s[10] != 'T' && s[10] != 't') {
		return time.Time{}, false
	}
	d, ok := parseDate(s[:10])
	if !ok {
		return time.Time{}, false
	}
	rest := s[11:]
	if len(rest) < 9 || rest[2] != ':' || rest[5] != ':' {
		return time.Time{}, false
	}
	h, ok1 := digits(rest[0:2])
	m, ok2 := digits(rest[3:5])
	sec, ok3 := digits(rest[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return time.Time{}, false
	}
	rest = rest[8:]
	nanos := 0
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		n := 0
		for n < len(frac) && frac[n] >= '0' && frac[n] <= '9' {
			n++
		}
		if n == 0 {
			return time.Time{}, false
		}
		f := frac[:n]
		if len(f) > 9 {
			f = f[:9]
		}
		nanos, _ = strconv.Atoi(f + strings.Repeat("0", 9-len(f)))
		rest = frac[n:]
	}
	offset := 0
	if rest != "Z" && rest != "z" {
		if len(rest) != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':' {
			return time.Time{}, false
		}
		zh, ok1 := digits(rest[1:3])
		zm, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || zh > 23 || zm > 59 {
			return time.Time{}, false
		}
		offset = zh*60 + zm
		if rest[0] == '-' {
			offset = -offset
		}
	}
	if sec == 60 {
		// A leap second is only valid at 23:59 UTC.
		hm := h*60 + m - offset
		hm = ((hm % 1440) + 1440) % 1440
		if hm != 23*60+59 {
			return time.Time{}, false
		}
	}
	t := time.Date(d.Year(), d.Month(), d.Day(), h, m, sec, nanos, time.FixedZone("", offset*60))
	return t.UTC(), true
}

// parseDate parses an RFC 3339 full-date (YYYY-MM-DD) as midnight UTC.
func parseDate(s string) (time.Time, bool) {
	t, err := time.Parse("2006-01-02", s)
	return t, err == nil
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}

// parseDuration parses an ISO 8601 duration (PnYnMnDTnHnMnS or PnW, whole
// numbers). A year counts 365 days and a month 30.
func parseDuration(s string) (time.Duration, bool) {
	s, ok := strings.CutPrefix(s, "P")
	if !ok || s == "" {
		return 0, false
	}
	const day = 24 * time.Hour
	var total time.Duration
	add := func(n string, unit time.Duration) bool {
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil || (v > 0 && time.Duration(v) > (1<<63-1)/unit) {
			return false
		}
		d := time.Duration(v) * unit
		if total > (1<<63-1)-d {
			return false
		}
		total += d
		return true
	}
	if w, ok := strings.CutSuffix(s, "W"); ok {
		if _, ok := digits(w); !ok {
			return 0, false
		}
		return total, add(w, 7*day)
	}
	parts := strings.Split(s, "T")
	if len(parts) > 2 || (len(parts) == 2 && parts[1] == "") {
		return 0, false
	}
	units := [2]string{"YMD", "HMS"}
	scale := [2][3]time.Duration{{365 * day, 30 * day, day}, {time.Hour, time.Minute, time.Second}}
	for i, p := range parts {
		allowed := units[i]
		for p != "" {
			n := 0
			for n < len(p) && p[n] >= '0' && p[n] <= '9' {
				n++
			}
			if n == 0 || n == len(p) {
				return 0, false
			}
			j := strings.IndexByte(allowed, p[n])
			if j < 0 {
				return 0, false
			}
			if !add(p[:n], scale[i][len(units[i])-len(allowed)+j]) {
				return 0, false
			}
			allowed = allowed[j+1:]
			p = p[n+1:]
		}
	}
	return total, true
}

// formatDuration writes d, a non-negative whole number of seconds, as an
// ISO 8601 duration in days, hours, minutes and seconds.
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "PT0S"
	}
	var b strings.Builder
	b.WriteByte('P')
	if days := d / (24 * time.Hour); days > 0 {
		b.WriteString(strconv.FormatInt(int64(days), 10) + "D")
		d -= days * 24 * time.Hour
	}
	if d > 0 {
		b.WriteByte('T')
		if h := d / time.Hour; h > 0 {
			b.WriteString(strconv.FormatInt(int64(h), 10) + "H")
			d -= h * time.Hour
		}
		if m := d / time.Minute; m > 0 {
			b.WriteString(strconv.FormatInt(int64(m), 10) + "M")
			d -= m * time.Minute
		}
		if d > 0 {
			b.WriteString(strconv.FormatInt(int64(d/time.Second), 10) + "S")
		}
	}
	return b.String()
}

// validEmail reports whether s is an email address (addr-spec).
func validEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return false
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return false
		}
	} else {
		if local == "" || local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
			return false
		}
		for _, c := range local {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", c)) {
				return false
			}
		}
	}
	if len(domain) > 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			ip := net.ParseIP(v6)
			return ip != nil && strings.Contains(v6, ":")
		}
		return validIPv4(lit)
	}
	return validHostname(domain)
}

func validIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		n, ok := digits(p)
		if !ok || n > 255 || (len(p) > 1 && p[0] == '0') {
			return false
		}
	}
	return true
}

func validHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// validURI reports whether s is an absolute URI.
func validURI(s string) bool {
	if simpleWebURL(s) {
		return true
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() {
		return false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		return strings.Contains(u.Host, "[") && net.ParseIP(host) != nil
	}
	return true
}

// simpleWebURL reports, without parsing, whether s is an http or https URL
// made only of characters url.Parse accepts anywhere (letters, digits and
// -._~/) with a host of letters, digits, dots and hyphens and no port: the
// common case, which url.Parse would accept as absolute.
func simpleWebURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "http://"); !ok {
			return false
		}
	}
	host, path, _ := strings.Cut(rest, "/")
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == '~' || c == '/') {
			return false
		}
	}
	return true
}
