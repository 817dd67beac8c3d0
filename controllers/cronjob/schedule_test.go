package cronjob

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"
)

func TestLatestMissed(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		schedule, since, now string
		timeZone             *string
		latest               string // "" for none
		missed               int
	}{
		{schedule: "*/5 * * * *", since: "2026-03-01T10:00:00Z", now: "2026-03-01T10:04:59Z"},
		{schedule: "*/5 * * * *", since: "2026-03-01T10:00:00Z", now: "2026-03-01T10:05:00Z", latest: "2026-03-01T10:05:00Z", missed: 1},
		{schedule: "*/5 * * * *", since: "2026-03-01T10:00:00Z", now: "2026-03-01T10:17:30Z", latest: "2026-03-01T10:15:00Z", missed: 3},
		// A year of minutes missed: the count stops past 100, the latest is still found.
		{schedule: "* * * * *", since: "2025-03-01T10:00:00Z", now: "2026-03-01T10:17:30Z", latest: "2026-03-01T10:17:00Z", missed: 101},
		// Sparse after dense: the hour 3 minutes of last night, found from noon.
		{schedule: "* 3 * * *", since: "2026-01-01T00:00:00Z", now: "2026-03-01T12:00:00Z", latest: "2026-03-01T03:59:00Z", missed: 101},
		// 09:30 in Tokyo is 00:30 UTC.
		{schedule: "30 9 * * *", timeZone: ptr.To("Asia/Tokyo"), since: "2026-03-01T00:00:00Z", now: "2026-03-02T12:00:00Z", latest: "2026-03-02T00:30:00Z", missed: 2},
		// The 31st of February never comes.
		{schedule: "0 0 31 2 *", since: "2026-01-01T00:00:00Z", now: "2026-03-02T12:00:00Z"},
	} {
		cj := &batchv1.CronJob{Spec: batchv1.CronJobSpec{Schedule: tc.schedule, TimeZone: tc.timeZone}}
		sched, _, err := scheduleOf(cj)
		if err != nil {
			t.Fatalf("%s: %v", tc.schedule, err)
		}
		latest, missed := latestMissed(sched, at(tc.since), at(tc.now))
		want := time.Time{}
		if tc.latest != "" {
			want = at(tc.latest)
		}
		if !latest.Equal(want) || missed != tc.missed {
			t.Errorf("%q (%v) since %s, at %s: latest %s, %d missed; want %s, %d", tc.schedule, ptr.Deref(tc.timeZone, ""), tc.since, tc.now, latest, missed, want, tc.missed)
		}
	}
}

func TestScheduleOf(t *testing.T) {
	for _, tc := range []struct {
		schedule string
		timeZone *string
		reason   string
	}{
		{schedule: "@hourly"},
		{schedule: "0 0 * * *", timeZone: ptr.To("Europe/Berlin")},
		{schedule: "0 0 * * *", timeZone: ptr.To("Mars/Olympus_Mons"), reason: "UnknownTimeZone"},
		{schedule: "0 0 * *", reason: "UnparseableSchedule"},
		{schedule: "TZ=0", reason: "UnparseableSchedule"}, // the parser panics on this one
	} {
		_, reason, err := scheduleOf(&batchv1.CronJob{Spec: batchv1.CronJobSpec{Schedule: tc.schedule, TimeZone: tc.timeZone}})
		if reason != tc.reason || (err != nil) != (tc.reason != "") {
			t.Errorf("%q in %v: reason %q, err %v; want %q", tc.schedule, ptr.Deref(tc.timeZone, "local time"), reason, err, tc.reason)
		}
	}
}
