package repr

import (
	"math/rand"
	"testing"
)

// Round trips: a timestamp printed with a template that has every
// field reads back as itself, for seeded random timestamps of
// 0001–9999; and no template or input makes the functions panic.
func TestDateTimeTemplatesRoundTrip(t *testing.T) {
	seed := int64(20261203)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	lo, hi := daysFromCivil(1, 1, 1)*usPerDay, daysFromCivil(9999, 12, 31)*usPerDay
	templates := []string{"YYYY-MM-DD HH24:MI:SS.US", "YYYYMMDDHH24MISSUS", "FMDD Mon YYYY HH12:MI:SS.US AM", "J HH24 MI SS US"}
	for i := 0; i < 2000; i++ {
		us := lo + r.Int63n(hi-lo)
		for _, f := range templates {
			s, ok := FormatDateTime(us, f)
			if !ok {
				t.Fatalf("%d: not formatted", us)
			}
			back, err := ParseDateTime(s, f)
			if err != nil || back != us {
				t.Fatalf("%q with %q: read back %d, %v; want %d", s, f, back, err, us)
			}
		}
	}
	pieces := []string{"YYYY", "MM", "DD", "HH12", "AM", "Month", "dy", "FM", `"x"`, "-", " ", "J", "US", "\\", `"`, "ddd", "q", "A.M."}
	for i := 0; i < 5000; i++ {
		var f string
		for n := r.Intn(6); n >= 0; n-- {
			f += pieces[r.Intn(len(pieces))]
		}
		s, _ := FormatDateTime(lo+r.Int63n(hi-lo), f)
		ParseDateTime(s, f)
		ParseDateTime(s[:r.Intn(len(s)+1)], f)
	}
}
