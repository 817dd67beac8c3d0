package cronjob

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"
)

// tooManyMissed is how many missed times the controller still walks one by one; beyond it,
// something is wrong (a clock, a controller down for long), and it says so.
const tooManyMissed = 100

// scheduleOf parses the CronJob's schedule, read in spec.timeZone when that is set. A failure
// comes with the reason of the event that reports it.
func scheduleOf(cj *batchv1.CronJob) (sched cron.Schedule, reason string, err error) {
	spec := cj.Spec.Schedule
	if tz := cj.Spec.TimeZone; tz != nil && !strings.Contains(spec, "TZ=") {
		if _, err := time.LoadLocation(*tz); err != nil {
			return nil, "UnknownTimeZone", fmt.Errorf("invalid timeZone: %q: %s", *tz, err)
		}
		spec = "CRON_TZ=" + *tz + " " + spec
	}
	// The parser panics on some malformed input (a lone "TZ=", say); validation refuses it, but
	// a controller must not die of it.
	defer func() {
		if r := recover(); r != nil {
			sched, reason, err = nil, "UnparseableSchedule", fmt.Errorf("unparseable schedule: %q : %v", cj.Spec.Schedule, r)
		}
	}()
	if sched, err = cron.ParseStandard(spec); err != nil {
		return nil, "UnparseableSchedule", fmt.Errorf("unparseable schedule: %q : %s", cj.Spec.Schedule, err)
	}
	return sched, "", nil
}

// location is where the Job's scheduled-timestamp annotation is written: spec.timeZone, or UTC.
func location(cj *batchv1.CronJob) *time.Location {
	loc, err := time.LoadLocation(ptr.Deref(cj.Spec.TimeZone, ""))
	if err != nil {
		return time.UTC
	}
	return loc
}

// latestMissed is the latest time the schedule fired in (since, now], zero if none, and how
// many times it fired there, counted up to tooManyMissed+1.
func latestMissed(sched cron.Schedule, since, now time.Time) (latest time.Time, missed int) {
	for t := sched.Next(since); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		latest, missed = t, missed+1
		if missed > tooManyMissed {
			return latestSince(sched, t, now), missed
		}
	}
	return latest, missed
}

// latestSince is the latest time the schedule fires in [from, now], from being one of them.
// Rather than walk every time since from (years of minutes, after a clock jump), it looks back
// from now over a window that doubles until it holds one.
func latestSince(sched cron.Schedule, from, now time.Time) time.Time {
	for back := time.Minute; ; back *= 2 {
		start := now.Add(-back)
		if !start.After(from) {
			start = from
		}
		latest := start
		for t := sched.Next(start); !t.IsZero() && !t.After(now); t = sched.Next(t) {
			latest = t
		}
		if !latest.Equal(start) || start.Equal(from) {
			return latest
		}
	}
}
